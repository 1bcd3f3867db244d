"""``shangmi zuc``: (being written)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Adds the ``zuc`` subcommand (none yet)."""
