"""SM9 benchmarks from Python: every operation as µs and as a ratio to V, the
P-256 ECDSA verify time of ``openssl speed -seconds 3 ecdsap256`` measured
interleaved in the same run (skipped when there is no ``openssl``), and
against pure-Python ``gmalg`` and GmSSL's C library (``libgmssl.so`` through
ctypes, from ``--gmssl-lib`` or ``SHANGMI_GMSSL_LIB``; skipped when absent)
as same-process A/B ratios.

Run: ``shangmi bench sm9`` (``--quick`` for fewer rounds and 1-second
``openssl speed`` runs). Keys, identities and messages are random per run.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import shangmi
from shangmi import sm9
from shangmi._bench import PROCESS_CPU, Candidate, Comparison, compare, gmssl_lib
from shangmi._bench.sm2 import _openssl_speed

MSG = b"The quick brown fox jumps over the lazy dog (SM9 benchmark message)"
PT32 = bytes(range(32))
KLEN = 32
#: Signatures per ``verify_many`` call in the V table (its row is per item).
BATCH = 16
#: Operations whose one call does several items, and how many.
PER_CALL = {"verify_many per item": BATCH}
#: The speed targets, as the most V an operation may take: the IFMA lane
#: tower's (2026-12-07) for the pairing, prepared sign/encrypt/verify and
#: decrypt; the earlier ones for the rest.
TARGETS = {
    "pairing": 4.0,
    "sign (prepared)": 1.5,
    "encrypt (prepared)": 1.5,
    "verify (prepared)": 5.0,
    "decrypt (prepared)": 4.0,
    "encapsulate (prepared)": 1.5,
    "decapsulate (prepared)": 4.5,
    "extract sign": 2.0,
    "extract enc": 2.0,
}
_P1 = bytes.fromhex(
    "0493DE051D62BF718FF5ED0704487D01D6E1E4086909DC3280E8C4E4817C66DDDD"
    "21FE8DDA4F21E607631065125C395BBC1C1C00CBFA6024350C464CD70A3EA616"
)
_P2 = bytes.fromhex(
    "0485AEF3D078640C98597B6027B441A01FF1DD2C190F5E93C454806C11D8806141"
    "3722755292130B08D2AAB97FD34EC120EE265948D19C17ABF9B7213BAF82D65B"
    "17509B092E845C1266BA0D262CBEE6ED0736A96FA347C8BD856DC76B84EBEB96"
    "A7CF28D519BE3DA65F3170153D278FF247EFBA98A71A08116215BBA5C999A7C7"
)

Ops = dict[str, Callable[[], object]]


def _ours() -> Ops:
    uid = os.urandom(12)
    smk, emk = sm9.SignMasterKey.generate(), sm9.EncMasterKey.generate()
    smpk, empk = smk.public_key(), emk.public_key()
    smpk_p, empk_p = smpk.prepare(), empk.prepare()
    alice, bob = smk.extract(uid), emk.extract(uid)
    alice_p, bob_p = alice.prepare(), bob.prepare()
    sig = alice.sign(MSG)
    ct = empk.encrypt(PT32, uid)
    _, c = empk.encapsulate(uid, KLEN)
    g1_point, g2_point = empk.to_bytes(), smpk.to_bytes()
    batch = [(m, uid, alice.sign(m)) for m in (MSG + bytes([i]) for i in range(BATCH))]
    return {
        # One call checks BATCH signatures; _against_v reports it per item
        # (the thread count is set to 1 around it there).
        "verify_many per item": lambda: sm9.verify_many(smpk_p, batch),
        # Validation of a public point: G1 (Ppub-e) is on-curve only (cofactor 1),
        # G2 (Ppub-s) on the twist and in G2 (the endomorphism test).
        "validate G1 point": lambda: sm9.EncMasterPublicKey.from_bytes(g1_point),
        "validate G2 point": lambda: sm9.SignMasterPublicKey.from_bytes(g2_point),
        "extract sign": lambda: smk.extract(uid),
        "extract enc": lambda: emk.extract(uid),
        "sign": lambda: alice.sign(MSG),
        "sign (prepared)": lambda: alice_p.sign(MSG),
        "verify": lambda: smpk.verify(sig, MSG, uid),
        "verify (prepared)": lambda: smpk_p.verify(sig, MSG, uid),
        "encrypt": lambda: empk.encrypt(PT32, uid),
        "encrypt (prepared)": lambda: empk_p.encrypt(PT32, uid),
        "decrypt": lambda: bob.decrypt(ct),
        "decrypt (prepared)": lambda: bob_p.decrypt(ct),
        "encapsulate": lambda: empk.encapsulate(uid, KLEN),
        "encapsulate (prepared)": lambda: empk_p.encapsulate(uid, KLEN),
        "decapsulate": lambda: bob.decapsulate(c, KLEN),
        "decapsulate (prepared)": lambda: bob_p.decapsulate(c, KLEN),
        "pairing": lambda: sm9.pairing(_P1, _P2),
    }


def _gmalg() -> Ops | None:
    """The same operations in pure-Python gmalg (PyPI), or None if not installed."""
    try:
        import gmalg  # type: ignore[import-not-found, import-untyped, unused-ignore]
        from gmalg import sm9 as gsm9  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    uid = os.urandom(12)
    msk_s, msk_e = os.urandom(31), os.urandom(31)  # below n
    kgc = gmalg.SM9KGC(hid_s=b"\x01", msk_s=msk_s, hid_e=b"\x03", msk_e=msk_e)
    sk_s, sk_e = kgc.generate_sk_sign(uid), kgc.generate_sk_encrypt(uid)
    mpk_s, mpk_e = kgc.generate_mpk_sign(msk_s), kgc.generate_mpk_encrypt(msk_e)
    user = gmalg.SM9(hid_s=b"\x01", mpk_s=mpk_s, sk_s=sk_s, hid_e=b"\x03", mpk_e=mpk_e, sk_e=sk_e, uid=uid)
    h, s = user.sign(MSG)
    ct = user.encrypt(PT32, uid)
    _, c = user.encapsulate(KLEN, uid)
    bnbp = gsm9._bnbp
    return {
        "extract sign": lambda: kgc.generate_sk_sign(uid),
        "extract enc": lambda: kgc.generate_sk_encrypt(uid),
        "sign": lambda: user.sign(MSG),
        "verify": lambda: user.verify(MSG, h, s),
        "encrypt": lambda: user.encrypt(PT32, uid),
        "decrypt": lambda: user.decrypt(ct),
        "encapsulate": lambda: user.encapsulate(KLEN, uid),
        "decapsulate": lambda: user.decapsulate(c, KLEN),
        "pairing": lambda: bnbp.e(bnbp.G1, bnbp.G2),
    }


def _gmssl(lib_path: str | None) -> Ops | None:
    """The same operations in GmSSL's libgmssl through ctypes, or None."""
    path = lib_path or gmssl_lib.default_path()
    if not path or not os.path.exists(path):
        return None
    lib: Any = ctypes.CDLL(path)
    buf = ctypes.create_string_buffer
    size_t = ctypes.c_size_t
    uid = os.urandom(12)
    smk, emk, skey, ekey = buf(4096), buf(4096), buf(4096), buf(4096)
    if lib.sm9_sign_master_key_generate(smk) != 1 or lib.sm9_enc_master_key_generate(emk) != 1:
        return None
    lib.sm9_sign_master_key_extract_key(smk, uid, size_t(len(uid)), skey)
    lib.sm9_enc_master_key_extract_key(emk, uid, size_t(len(uid)), ekey)
    ctx, sig, siglen = buf(4096), buf(256), size_t(0)

    def sign() -> None:
        n = size_t(0)
        lib.sm9_sign_init(ctx)
        lib.sm9_sign_update(ctx, MSG, size_t(len(MSG)))
        if lib.sm9_sign_finish(ctx, skey, sig, ctypes.byref(n)) != 1:
            raise RuntimeError("GmSSL sm9_sign_finish failed")
        siglen.value = n.value

    sign()
    sig_bytes = sig.raw[: siglen.value]

    def verify() -> None:
        lib.sm9_verify_init(ctx)
        lib.sm9_verify_update(ctx, MSG, size_t(len(MSG)))
        if lib.sm9_verify_finish(ctx, sig_bytes, size_t(len(sig_bytes)), smk, uid, size_t(len(uid))) != 1:
            raise RuntimeError("GmSSL sm9_verify_finish failed")

    out, outlen = buf(1024), size_t(0)
    lib.sm9_encrypt(emk, uid, size_t(len(uid)), PT32, size_t(len(PT32)), out, ctypes.byref(outlen))
    ct = out.raw[: outlen.value]
    kbuf, point = buf(KLEN), buf(1024)
    lib.sm9_kem_encrypt(emk, uid, size_t(len(uid)), size_t(KLEN), kbuf, point)
    fp12 = buf(4096)
    lib.sm9_z256_generator.restype = ctypes.c_void_p
    lib.sm9_z256_twist_generator.restype = ctypes.c_void_p
    p1, p2 = ctypes.c_void_p(lib.sm9_z256_generator()), ctypes.c_void_p(lib.sm9_z256_twist_generator())
    scratch, dec, declen = buf(4096), buf(1024), size_t(0)
    return {
        "extract sign": lambda: lib.sm9_sign_master_key_extract_key(smk, uid, size_t(len(uid)), scratch),
        "extract enc": lambda: lib.sm9_enc_master_key_extract_key(emk, uid, size_t(len(uid)), scratch),
        "sign": sign,
        "verify": verify,
        "encrypt": lambda: lib.sm9_encrypt(emk, uid, size_t(len(uid)), PT32, size_t(32), out, ctypes.byref(outlen)),
        "decrypt": lambda: lib.sm9_decrypt(ekey, uid, size_t(len(uid)), ct, size_t(len(ct)), dec, ctypes.byref(declen)),
        "encapsulate": lambda: lib.sm9_kem_encrypt(emk, uid, size_t(len(uid)), size_t(KLEN), kbuf, point),
        "decapsulate": lambda: lib.sm9_kem_decrypt(ekey, uid, size_t(len(uid)), point, size_t(KLEN), kbuf),
        "pairing": lambda: lib.sm9_z256_pairing(fp12, p2, p1),
    }


def _against_v(ours: Ops, rounds: int, seconds: int) -> Comparison | None:
    """Each round: one ``openssl speed -seconds S ecdsap256`` run, then each of
    our operations for S/5 s of process time (``openssl speed`` divides by its
    CPU time, so ours are timed the same way). None without ``openssl``."""
    v = Candidate("V = openssl speed P-256 verify", lambda: None)
    mine = {op: Candidate(op, fn) for op, fn in ours.items()}
    for fn in ours.values():  # warm-up: lazy tables, caches
        fn()
    threads = shangmi.num_threads()
    shangmi.set_num_threads(1)  # one thread: the batch rows are per item on one core, like V
    try:
        for _ in range(rounds):
            speed = _openssl_speed(seconds)
            if speed is None:
                return None
            v.per_op_seconds.append(1 / speed[1])
            for op, c in mine.items():
                n, start = 0, time.process_time()
                while (elapsed := time.process_time() - start) < seconds / 5:
                    c.fn()
                    n += 1
                c.per_op_seconds.append(elapsed / n / PER_CALL.get(op, 1))
    finally:
        shangmi.set_num_threads(threads)
    return Comparison(
        "SM9 operations vs V (openssl speed ecdsap256 verify, interleaved)", None, [*mine.values(), v], PROCESS_CPU
    )


def v_table(comp: Comparison) -> str:
    """Every operation of :func:`_against_v`'s comparison as median µs and × V, with the targets."""
    v = next(c for c in comp.candidates if c.name.startswith("V ="))
    lines = ["", f"SM9 in units of V (V = {v.median * 1e6:.1f} µs median, min {v.min * 1e6:.1f} µs)"]
    for c in comp.candidates:
        if c is v:
            continue
        ratio = c.median / v.median
        goal = TARGETS.get(c.name)
        verdict = "" if goal is None else f"   target ≤ {goal:g} V: {'MET' if ratio <= goal else 'not met'}"
        lines.append(f"  {c.name:<24} median {c.median * 1e6:9.1f} µs  min {c.min * 1e6:9.1f} µs  {ratio:6.2f} V{verdict}")
    return "\n".join(lines)


def run(quick: bool = False, peers: bool = False, gmssl_lib: str | None = None) -> Iterator[Comparison]:
    rounds = 3 if quick else 5
    ours = _ours()
    gm, gs = _gmalg(), _gmssl(gmssl_lib)
    for op in ("extract sign", "extract enc", "sign", "verify", "encrypt", "decrypt", "encapsulate", "decapsulate", "pairing"):
        cands: Ops = {"shangmi": ours[op]}
        if f"{op} (prepared)" in ours:
            cands["shangmi prepared"] = ours[f"{op} (prepared)"]
        if gs is not None:
            cands["GmSSL (libgmssl, ctypes)"] = gs[op]
        if gm is not None:
            cands["gmalg (pure Python)"] = gm[op]
        yield compare(f"SM9 {op}", cands, rounds=rounds, batch_seconds=0.05 if gm is None else 0.2)
    if gm is None:
        print("(gmalg not installed: pip install gmalg to compare)")
    if gs is None:
        print("(GmSSL's libgmssl.so not found: give --gmssl-lib PATH or SHANGMI_GMSSL_LIB)")
    speed = _against_v(ours, rounds=2 if quick else 3, seconds=1 if quick else 3)
    if speed is None:
        print("(openssl not found: no ratios to V)")
        return
    yield speed
    print(v_table(speed))
