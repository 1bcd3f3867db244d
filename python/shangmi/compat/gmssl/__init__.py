"""A secure drop-in for the ``gmssl`` package (``sm2``, ``sm3``, ``sm4``, ``func``).

Replace ``from gmssl import sm2, sm3, sm4, func`` with
``from shangmi.compat.gmssl import sm2, sm3, sm4, func``: the classes and
functions keep their names, signatures, hex-string formats and defaults
(``CryptSM2`` mode 0 = C1C2C3 without the 04 byte, ``asn1=False`` = raw
r‖s signatures as 128 hex digits, the fixed ID ``1234567812345678``), and the
bytes they produce interoperate with the ``gmssl`` package both ways.

What changes, on purpose:

* Nonces come from the operating system's CSPRNG. The ``K`` argument of
  ``CryptSM2.sign`` and ``random_hex_str`` of ``sign_with_sm3`` are accepted
  and **ignored** (a caller-chosen nonce is how SM2 keys leak), and
  ``func.random_hex`` uses :mod:`secrets`.
* ``CryptSM2.decrypt`` checks C3 and raises :class:`shangmi.DecryptionError`
  instead of returning garbage; malformed input raises
  :class:`shangmi.InvalidInputError` instead of returning ``None`` or ``b''``.
* A public key given as hex with the 04 prefix is parsed correctly (the
  ``gmssl`` package's ``lstrip("04")`` also strips a leading ``0`` or ``4``
  digit of x, about one key in eight).
* ``CryptSM4`` refuses keys that are not 16 bytes and bad PKCS#7 padding
  (:class:`shangmi.InvalidInputError`).
* Only the standard SM2 curve is supported: another ``ecc_table`` raises.
"""

from __future__ import annotations

from shangmi.compat.gmssl import func, sm2, sm3, sm4

__all__ = ["func", "sm2", "sm3", "sm4"]
