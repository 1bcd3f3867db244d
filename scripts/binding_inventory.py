#!/usr/bin/env python3
"""List every #[pyfunction] and #[pymethods] function of the binding crate with
what it does: the conversions of its arguments, whether it releases the GIL,
how errors are mapped, and which core functions it calls. A thin binding has
nothing else; a line marked `LOGIC?` has control flow worth a second look.

    python scripts/binding_inventory.py [files...]   # default: the files below

Parsing is textual (brace matching on rustfmt-formatted code), enough for an
inventory, not a compiler.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "crates" / "shangmi-python" / "src"

CONVERSIONS = {
    "Bytes": "buffer view",
    "Uint": "unsigned int",
    "Name": "option name (str)",
    "bool": "bool",
    "Option": "optional",
    "&Bound": "Python object",
    "PyRef": "pyclass ref",
}


def functions(text: str) -> list[tuple[str, str, str, str]]:
    """(kind, owner, name, source) for each exported function in `text`."""
    out = []
    # #[pyfunction] free functions
    for m in re.finditer(r"#\[pyfunction\]\s*(?:#\[pyo3\([^\]]*\)\]\s*)?fn\s+(\w+)", text):
        out.append(("function", "", m.group(1), body(text, m.end())))
    # #[pymethods] impl blocks
    for m in re.finditer(r"#\[pymethods\]\s*impl\s+(\w+)\s*\{", text):
        block = body(text, m.end() - 1)
        for f in re.finditer(r"(?m)^    (?:#\[[^\n]*\]\s*)*fn\s+(\w+)", block):
            out.append(("method", m.group(1), f.group(1), body(block, f.end())))
    return out


def body(text: str, start: int) -> str:
    """From `start` to the end of the next brace-balanced block."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[start : j + 1]
    return text[start:]


def describe(src: str) -> str:
    sig = src[: src.index("{")].split("->")[0]
    conv = sorted({v for k, v in CONVERSIONS.items() if re.search(rf"(?<![\w&]){re.escape(k)}\b", sig)})
    gil = "GIL released" if re.search(r"\.detach\(|maybe_detach\(", src) else "GIL held"
    errs = []
    if "py_err" in src:
        errs.append("core errors via the table")
    if re.search(r"wrong_type\(|invalid\(", src):
        errs.append("argument errors")
    calls = sorted(set(re.findall(r"\b((?:sm2|zuc|fmt|shangmi|cpu|CiphertextMode|SignatureEncoding|KeyEncryption)::[\w:]+)", src)))
    calls = [c for c in calls if not c.endswith(("::Message", "::PublicKey", "::Signature", "::Result", "::Error"))]
    body_only = src[src.index("{") :]
    flags = []
    if re.search(r"\b(if|match|for|while|loop)\b", body_only) and "register" not in sig:
        flags.append("LOGIC?")
    parts = [", ".join(conv) or "no arguments", gil, "; ".join(errs) or "infallible"]
    line = " | ".join(parts)
    if calls:
        line += " | core: " + ", ".join(calls)
    if flags:
        line += " | " + " ".join(flags)
    return line


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or sorted(SRC.glob("*.rs"))
    total = 0
    for path in files:
        text = path.read_text()
        found = functions(text)
        if not found:
            continue
        print(f"\n{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        for kind, owner, name, src in found:
            label = f"{owner}.{name}" if owner else name
            print(f"  {label:42} {describe(src)}")
            total += 1
    print(f"\n{total} exported functions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
