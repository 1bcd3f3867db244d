"""X.509 costs against the SM2 verifications they contain, with their targets:
parsing and verifying a certificate should cost one SM2 verification plus at
most 20%, and ``verify_chain`` on a 3-certificate chain at most three
verifications plus 30%. Both sides run in this process, alternating.

Run: ``python -m shangmi._bench.x509`` (``--quick`` for fewer rounds).
"""

from __future__ import annotations

import datetime as dt
import sys

from shangmi import sm2, x509
from shangmi._bench import Comparison, compare
from shangmi.x509 import BasicConstraints, Name, NameAttribute, NameOID

GM = sm2.DEFAULT_UID


def _chain() -> tuple[list[x509.Certificate], list[sm2.PrivateKey]]:
    now = dt.datetime.now(dt.timezone.utc)
    keys = [sm2.PrivateKey.generate() for _ in range(3)]
    names = [Name([NameAttribute(NameOID.COMMON_NAME, n)]) for n in ("root", "inter", "leaf")]
    certs: list[x509.Certificate] = []
    for i in range(3):
        issuer = max(i - 1, 0)
        b = (x509.CertificateBuilder().subject_name(names[i]).issuer_name(names[issuer])
             .public_key(keys[i].public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
             .add_extension(BasicConstraints(ca=i < 2, path_length=None), critical=True))
        certs.append(b.sign(keys[issuer]))
    return certs, keys


def run(quick: bool = False) -> list[Comparison]:
    rounds = 5 if quick else 11
    (root, inter, leaf), keys = _chain()
    der, tbs, sig = leaf.to_der(), leaf.tbs_certificate_bytes, leaf.signature
    inter_pub = keys[1].public_key()
    chain_sigs = [(keys[0].public_key(), c.tbs_certificate_bytes, c.signature) for c in (inter, root)]

    def one_verify() -> None:
        inter_pub.verify(sig, tbs, uid=GM)

    def parse_and_verify() -> None:
        x509.load_der_x509_certificate(der).verify_directly_issued_by(inter, uid=None)

    def three_verifies() -> None:
        inter_pub.verify(sig, tbs, uid=GM)
        for k, t, s in chain_sigs:
            k.verify(s, t, uid=GM)

    def chain() -> None:
        x509.verify_chain(leaf, [inter], [root])

    return [
        compare("x509: parse + verify_directly_issued_by vs one SM2 verify",
                {"one SM2 verify": one_verify, "parse+verify": parse_and_verify}, rounds=rounds),
        compare("x509: verify_chain (3 certificates; the anchor's own signature is not checked) vs 3 SM2 verifies",
                {"3 SM2 verifies": three_verifies, "verify_chain": chain}, rounds=rounds),
    ]


def main(argv: list[str]) -> int:
    comps = run(quick="--quick" in argv)
    for c in comps:
        print(c.name)
        for cand in c.candidates:
            print(f"  {cand.name:<16} min {cand.min * 1e6:8.1f} µs  median {cand.median * 1e6:8.1f} µs")
    a, b = comps
    print(f"parse+verify / one verify: {a.ratio('parse+verify', 'one SM2 verify'):.3f} (target <= 1.20)")
    print(f"verify_chain / 3 verifies: {b.ratio('verify_chain', '3 SM2 verifies'):.3f} (target <= 1.30)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
