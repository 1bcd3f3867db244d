"""``shangmi sm2``: (being written)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Adds the ``sm2`` subcommand (none yet)."""
