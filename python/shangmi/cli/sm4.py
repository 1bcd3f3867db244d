"""``shangmi sm4``: (being written)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Adds the ``sm4`` subcommand (none yet)."""
