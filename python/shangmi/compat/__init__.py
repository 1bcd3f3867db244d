"""Drop-in layers for code written against other ShangMi libraries.

:mod:`shangmi.compat.gmssl` keeps code written for the ``gmssl`` package
running (``from shangmi.compat.gmssl import sm2, sm3, sm4, func``) on shangmi's
core, with that package's security bugs fixed.
"""

from __future__ import annotations

__all__ = ["gmssl"]
