#!/usr/bin/env python3
"""List every #[pyfunction] and #[pymethods] function of the binding crate with
what it does: the conversions of its arguments, whether it releases the GIL,
how errors are mapped, and which core functions it calls. A thin binding has
nothing else; a line marked `LOGIC?` has control flow worth a second look.

Private helpers are listed too when they have control flow (an `if`, `match`
or loop moved out of an exported function is still in the binding), each with
what its control flow is for:
- `argument conversion` (buffer.rs), `error table` (errors.rs), `GIL`
  (gil.rs): the three jobs the binding exists for, by module;
- `conversion`: a helper named `*_in`, `*_out` or `*_item` (the binding's
  convention for converting one Python value to one core value or back, for
  example a `match` over the variants of a core enum such as `ExtValue`)
  that calls no core operation (`sm2::sign(...)`, `modes::verify(...)`):
  branching on the *shape* of a value is conversion, branching on what to
  *do* is logic;
- `LOGIC?` otherwise.

    python scripts/binding_inventory.py [files...]   # default: the files below
    python scripts/binding_inventory.py --count      # just the number of LOGIC? lines

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


CONTROL = re.compile(r"\b(if|match|for|while|loop)\b")
CORE_OP = re.compile(r"\b(?:shangmi|sm2|sm3|sm4|sm9|zuc|fmt|modes|cms|x509|ext|cpu|par)::(?:[\w]+::)*[a-z_]\w*\(")
MODULE_JOB = {"buffer.rs": "argument conversion", "errors.rs": "error table", "gil.rs": "GIL"}


def helpers(text: str) -> list[tuple[str, str]]:
    """(name, source) of each private free function (not exported, not
    `register`) outside `#[pymethods]` blocks."""
    out = []
    for m in re.finditer(r"(?m)^(?:pub\(crate\) )?fn\s+(\w+)", text):
        before = text[: m.start()].rstrip()
        if before.endswith("]") and re.search(r"#\[(pyfunction|pyo3\([^\]]*\))\]\s*$", before):
            continue
        if m.group(1) == "register":
            continue
        out.append((m.group(1), body(text, m.end())))
    for m in re.finditer(r"(?m)^impl<[^\n]*FromPyObject[^\n]*\bfor\s+(\w+)[^\n{]*\n?[^{]*\{", text):
        block = body(text, m.end() - 1)
        for f in re.finditer(r"(?m)^    fn\s+(extract)\b", block):
            out.append((f"{m.group(1)}::{f.group(1)}", body(block, f.end())))
    return out


def classify_helper(path: Path, name: str, src: str) -> str | None:
    """What a helper's control flow is for, or None when it has none."""
    if not CONTROL.search(src[src.index("{") :]):
        return None
    if path.name in MODULE_JOB:
        return MODULE_JOB[path.name]
    if re.search(r"_(in|out|item)$", name) and not CORE_OP.search(src):
        return "conversion"
    return "LOGIC?"


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
    # macro_rules! that write a #[pymethods] block (shared methods, then the
    # caller's own in braces): each invocation lists both under its type.
    for mac in re.finditer(r"macro_rules!\s*(\w+)\s*\{", text):
        mbody = body(text, mac.end() - 1)
        impl = re.search(r"#\[pymethods\]\s*impl\s+\$\w+\s*\{", mbody)
        if not impl:
            continue
        shared = methods_in(body(mbody, impl.end() - 1))
        for call in re.finditer(rf"(?m)^{mac.group(1)}!\(\s*(\w+)\s*,", text):
            own = methods_in(body(text, call.end()))
            for name, src in shared + own:
                out.append(("method", call.group(1), name, src))
    return out


def methods_in(block: str) -> list[tuple[str, str]]:
    """(name, source) of the outermost `fn`s of a brace block, at any indentation."""
    found = []
    pos = 1
    while True:
        f = re.compile(r"(?m)^\s*(?:#\[[^\n]*\]\s*)*fn\s+(\w+)").search(block, pos)
        if not f:
            return found
        src = body(block, f.end())
        found.append((f.group(1), src))
        pos = f.end() + len(src)


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
    calls = sorted(set(re.findall(r"\b((?:sm2|sm3|sm4|sm9|zuc|fmt|modes|shangmi|cpu|cms|x509|CiphertextMode|SignatureEncoding|KeyEncryption|Flavor|RecipientId|ExtKind|ExtValue|SignedObject)::[\w:]+)", src)))
    calls = [c for c in calls if not c.endswith(("::Message", "::PublicKey", "::Signature", "::Result", "::Error"))]
    body_only = src[src.index("{") :]
    flags = []
    if CONTROL.search(body_only) and "register" not in sig:
        flags.append("LOGIC?")
    parts = [", ".join(conv) or "no arguments", gil, "; ".join(errs) or "infallible"]
    line = " | ".join(parts)
    if calls:
        line += " | core: " + ", ".join(calls)
    if flags:
        line += " | " + " ".join(flags)
    return line


def main(argv: list[str]) -> int:
    count_only = "--count" in argv
    files = [Path(a) for a in argv if a != "--count"] or sorted(SRC.glob("*.rs"))
    total = flagged = 0
    lines: list[str] = []
    for path in files:
        text = path.read_text()
        found = functions(text)
        helper_lines = []
        for name, src in helpers(text):
            why = classify_helper(path, name, src)
            if why is not None:
                helper_lines.append(f"  {'(helper) ' + name:42} {why}")
                flagged += why == "LOGIC?"
        if not found and not helper_lines:
            continue
        lines.append(f"\n{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        for kind, owner, name, src in found:
            label = f"{owner}.{name}" if owner else name
            d = describe(src)
            lines.append(f"  {label:42} {d}")
            total += 1
            flagged += d.endswith("LOGIC?")
        lines.extend(helper_lines)
    if count_only:
        print(flagged)
        return 0
    print("\n".join(lines))
    print(f"\n{total} exported functions, {flagged} LOGIC? lines (exported functions and helpers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
