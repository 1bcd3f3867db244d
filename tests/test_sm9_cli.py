"""``shangmi sm9 setup|keygen|sign|verify|encrypt|decrypt`` with GmSSL's option
names, files GmSSL wrote (tests/vectors/sm9_gmssl), and, when GmSSL's tool is
available (SHANGMI_GMSSL or ``gmssl`` on PATH), a round trip through both CLIs."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from shangmi import sm9
from shangmi.cli import main

VEC = Path(__file__).parent / "vectors" / "sm9_gmssl"
GMSSL = os.environ.get("SHANGMI_GMSSL") or shutil.which("gmssl")
requires_gmssl = pytest.mark.skipif(GMSSL is None, reason="GmSSL's gmssl tool not installed (set SHANGMI_GMSSL)")


def run(*args: str) -> int:
    return main(["sm9", *args])


def _gm(*args: str) -> bytes:
    assert GMSSL is not None
    p = subprocess.run([GMSSL, *args], capture_output=True, check=False)
    assert p.returncode == 0, f"gmssl {' '.join(args)}: {(p.stdout + p.stderr).decode(errors='replace')}"
    return p.stdout


def test_sign_flow_with_gmssl_option_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = lambda n: str(tmp_path / n)  # noqa: E731
    assert run("setup", "-alg", "sm9sign", "-pass", "P@ss", "-out", t("msk.pem"), "-pubout", t("mpk.pem")) == 0
    assert stat.S_IMODE(os.stat(t("msk.pem")).st_mode) == 0o600
    assert (tmp_path / "msk.pem").read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert (tmp_path / "mpk.pem").read_bytes().startswith(b"-----BEGIN SM9 SIGN MASTER PUBLIC KEY-----")
    assert run("keygen", "-alg", "sm9sign", "-in", t("msk.pem"), "-inpass", "P@ss", "-id", "Alice", "-out", t("a.pem"), "-outpass", "u") == 0
    assert stat.S_IMODE(os.stat(t("a.pem")).st_mode) == 0o600
    msk = sm9.SignMasterKey.from_pem((tmp_path / "msk.pem").read_bytes(), "P@ss")
    assert sm9.SignPrivateKey.from_pem((tmp_path / "a.pem").read_bytes(), "u").to_bytes() == msk.extract(b"Alice").to_bytes()
    (tmp_path / "m").write_bytes(b"signed text")
    assert run("sign", "-key", t("a.pem"), "-pass", "u", "-in", t("m"), "-out", t("m.sig")) == 0
    capsys.readouterr()
    assert run("verify", "-pubmaster", t("mpk.pem"), "-id", "Alice", "-in", t("m"), "-sig", t("m.sig")) == 0
    assert "Verified" in capsys.readouterr().out
    assert run("verify", "-pubmaster", t("mpk.pem"), "-id", "Bob", "-in", t("m"), "-sig", t("m.sig")) == 1
    # --long forms, hex signatures, and raw encoding.
    assert run("sign", "--key", t("a.pem"), "--pass", "pass:u", "--in", t("m"), "--out", t("h.sig"), "--hex") == 0
    assert run("verify", "--pubmaster", t("mpk.pem"), "--id", "Alice", "--in", t("m"), "--sig", t("h.sig")) == 0
    assert run("sign", "-key", t("a.pem"), "-pass", "u", "-in", t("m"), "-out", t("r.sig"), "--encoding", "raw") == 0
    assert len((tmp_path / "r.sig").read_bytes()) == 97
    assert run("verify", "-pubmaster", t("mpk.pem"), "-id", "Alice", "-in", t("m"), "-sig", t("r.sig"), "--encoding", "raw") == 0


def test_encrypt_flow_and_mac_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = lambda n: str(tmp_path / n)  # noqa: E731
    monkeypatch.setenv("SM9PW", "secret")
    (tmp_path / "pw").write_text("filepw\n")
    assert run("setup", "--alg", "sm9encrypt", "--pass-env", "SM9PW", "--out", t("msk.pem"), "--pubout", t("mpk.pem")) == 0
    assert run("keygen", "--alg", "sm9encrypt", "--in", t("msk.pem"), "--inpass", "env:SM9PW", "--id", "Bob", "--out", t("b.pem"), "--outpass-file", t("pw")) == 0
    (tmp_path / "m").write_bytes(b"p" * 1000)  # beyond GmSSL's 255-byte cap
    for mac in ("hmac-sm3", "sm3"):
        assert run("encrypt", "-pubmaster", t("mpk.pem"), "-id", "Bob", "-in", t("m"), "-out", t("c"), "--mac", mac) == 0
        assert run("decrypt", "-key", t("b.pem"), "--pass-file", t("pw"), "-id", "Bob", "-in", t("c"), "-out", t("p"), "--mac", mac) == 0
        assert (tmp_path / "p").read_bytes() == b"p" * 1000
    # The default is GmSSL's DER + HMAC-SM3: decrypting it with the standard's MAC fails.
    assert run("encrypt", "-pubmaster", t("mpk.pem"), "-id", "Bob", "-in", t("m"), "-out", t("c")) == 0
    assert run("decrypt", "-key", t("b.pem"), "--pass-file", t("pw"), "-id", "Bob", "-in", t("c"), "--mac", "sm3") == 1
    assert run("decrypt", "-key", t("b.pem"), "--pass-file", t("pw"), "-id", "Carol", "-in", t("c")) == 1
    # Key-agreement keys and mismatched master keys.
    assert run("keygen", "-alg", "sm9keyagreement", "-in", t("msk.pem"), "-inpass", "secret", "-id", "Bob", "-out", t("x.pem")) == 0
    msk = sm9.EncMasterKey.from_pem((tmp_path / "msk.pem").read_bytes(), "secret")
    assert sm9.EncPrivateKey.from_pem((tmp_path / "x.pem").read_bytes()).to_bytes() == msk.extract(b"Bob", hid=2).to_bytes()
    assert run("keygen", "-alg", "sm9sign", "-in", t("msk.pem"), "-inpass", "secret", "-id", "Bob") == 1
    assert run("keygen", "-alg", "sm9encrypt", "-in", t("msk.pem"), "-inpass", "wrong", "-id", "Bob") == 1


def test_gmssl_written_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    v = lambda n: str(VEC / n)  # noqa: E731
    assert run("verify", "-pubmaster", v("sign_mpk.pem"), "-id", "Alice", "-in", v("msg.txt"), "-sig", v("msg.sig")) == 0
    out = tmp_path / "pt"
    assert run("decrypt", "-key", v("enc_bob.pem"), "-pass", "123456", "-id", "Bob", "-in", v("msg.ct"), "-out", str(out)) == 0
    assert out.read_bytes() == (VEC / "msg.txt").read_bytes()
    assert run("keygen", "-alg", "sm9sign", "-in", v("sign_msk.pem"), "-inpass", "P@ssw0rd", "-id", "Alice", "-out", str(tmp_path / "a.pem")) == 0
    ours = sm9.SignPrivateKey.from_pem((tmp_path / "a.pem").read_bytes())
    assert ours.to_bytes() == sm9.SignPrivateKey.from_pem((VEC / "sign_alice.pem").read_bytes(), "123456").to_bytes()


@requires_gmssl
def test_round_trip_through_both_clis(tmp_path: Path) -> None:
    t = lambda n: str(tmp_path / n)  # noqa: E731
    (tmp_path / "m").write_bytes(b"both tools")
    # GmSSL sets up; we extract, sign, encrypt; GmSSL verifies and decrypts.
    _gm("sm9setup", "-alg", "sm9sign", "-pass", "pw", "-out", t("smsk.pem"), "-pubout", t("smpk.pem"))
    _gm("sm9setup", "-alg", "sm9encrypt", "-pass", "pw", "-out", t("emsk.pem"), "-pubout", t("empk.pem"))
    assert run("keygen", "-alg", "sm9sign", "-in", t("smsk.pem"), "-inpass", "pw", "-id", "Alice", "-out", t("a.pem"), "-outpass", "k") == 0
    assert run("keygen", "-alg", "sm9encrypt", "-in", t("emsk.pem"), "-inpass", "pw", "-id", "Bob", "-out", t("b.pem"), "-outpass", "k") == 0
    assert run("sign", "-key", t("a.pem"), "-pass", "k", "-in", t("m"), "-out", t("s")) == 0
    assert b"success" in _gm("sm9verify", "-pubmaster", t("smpk.pem"), "-id", "Alice", "-in", t("m"), "-sig", t("s"))
    assert run("encrypt", "-pubmaster", t("empk.pem"), "-id", "Bob", "-in", t("m"), "-out", t("c")) == 0
    assert _gm("sm9decrypt", "-key", t("b.pem"), "-pass", "k", "-id", "Bob", "-in", t("c")) == b"both tools"
    # We set up; GmSSL extracts, signs, encrypts; we verify and decrypt.
    assert run("setup", "-alg", "sm9sign", "-pass", "pw", "-out", t("smsk2.pem"), "-pubout", t("smpk2.pem")) == 0
    assert run("setup", "-alg", "sm9encrypt", "-pass", "pw", "-out", t("emsk2.pem"), "-pubout", t("empk2.pem")) == 0
    _gm("sm9keygen", "-alg", "sm9sign", "-in", t("smsk2.pem"), "-inpass", "pw", "-id", "Alice", "-out", t("a2.pem"), "-outpass", "k")
    _gm("sm9keygen", "-alg", "sm9encrypt", "-in", t("emsk2.pem"), "-inpass", "pw", "-id", "Bob", "-out", t("b2.pem"), "-outpass", "k")
    _gm("sm9sign", "-key", t("a2.pem"), "-pass", "k", "-in", t("m"), "-out", t("s2"))
    assert run("verify", "-pubmaster", t("smpk2.pem"), "-id", "Alice", "-in", t("m"), "-sig", t("s2")) == 0
    _gm("sm9encrypt", "-pubmaster", t("empk2.pem"), "-id", "Bob", "-in", t("m"), "-out", t("c2"))
    assert run("decrypt", "-key", t("b2.pem"), "-pass", "k", "-id", "Bob", "-in", t("c2"), "-out", t("p2")) == 0
    assert (tmp_path / "p2").read_bytes() == b"both tools"


def test_bench_sm9_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """``shangmi bench sm9``'s operations each run, a missing GmSSL library is
    skipped, and the V table states each target against the measured ratio."""
    from shangmi._bench import Candidate, Comparison
    from shangmi._bench import sm9 as bench

    ops = bench._ours()
    assert set(bench.TARGETS) <= set(ops)
    for fn in ops.values():
        fn()
    monkeypatch.delenv("SHANGMI_GMSSL_LIB", raising=False)
    assert bench._gmssl(None) is None and bench._gmssl("/nonexistent/libgmssl.so") is None
    v = Candidate("V = openssl speed P-256 verify", lambda: None, [100e-6])
    fast, slow = Candidate("pairing", lambda: None, [400e-6]), Candidate("extract sign", lambda: None, [300e-6])
    table = bench.v_table(Comparison("x", None, [fast, slow, v]))
    assert "pairing" in table and "4.00 V" in table and "target ≤ 4 V: MET" in table
    assert "3.00 V   target ≤ 2 V: not met" in table
