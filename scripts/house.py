"""The house rules DESIGN.md states, checked against the tree.

Usage: python scripts/house.py        (from anywhere; exit status 1 on a failure)

Each rule prints `ok` or the offending lines:
  path      no `#[path]` attribute except on a `#[cfg(test)]` module (a sibling
            test file): folders are modules;
  oid       every ShangMi OID (arc 1.2.156.10197, in dotted, arc-list or DER
            byte form) written in exactly one Rust module, `encoding/oid`;
  curve     one `Affine`, one `Jacobian` and one comb (fixed-base table) type
            in the core;
  ctime     one constant-time harness: valgrind client requests are issued
            from one file, and no example or test outside it defines its own;
  examples  `examples/` shows how to use the crate: no timing code there
            (timing programs are benches);
  wording   the project speaks of itself: no words about how its work was
            organised (numbered sessions, working branches, worktrees, work
            rounds, agents, the tracker's issue numbers, paths of the machine
            it was done on) in code, scripts, docs or notes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "shangmi"


def tracked(*patterns: str) -> list[Path]:
    """Files git tracks (and untracked, not ignored ones) matching `patterns`."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *patterns],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [ROOT / p for p in sorted(set(out.split())) if (ROOT / p).is_file()]


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def rule_path() -> list[str]:
    bad = []
    for f in tracked("crates/*.rs"):
        lines = f.read_text().splitlines()
        for i, line in enumerate(lines):
            if not line.lstrip().startswith("#[path"):
                continue
            before = [x.strip() for x in lines[max(0, i - 3) : i] if x.strip()]
            if "#[cfg(test)]" not in before:
                bad.append(f"{rel(f)}:{i + 1}: {line.strip()}")
    return bad


OID_FORMS = re.compile(
    r"1\.2\.156\.10197|1,\s*2,\s*156,\s*10197|0x2a,\s*0x81,\s*0x1c,\s*0xcf,\s*0x55|2a811ccf55",
    re.I,
)


def rule_oid() -> list[str]:
    home = "crates/shangmi/src/encoding/oid"
    bad = []
    for f in tracked("crates/*/src/*.rs"):
        if rel(f).startswith(home):
            continue
        for i, line in code_lines(f):
            if OID_FORMS.search(line):
                bad.append(f"{rel(f)}:{i + 1}: {line.strip()[:100]}")
    return bad


def code_lines(f: Path) -> list[tuple[int, str]]:
    """The non-comment lines of a Rust file before its test module: prose may
    name an OID, and a test may spell one out to check the encoder."""
    out = []
    lines = f.read_text().splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s == "#[cfg(test)]" and i + 1 < len(lines) and lines[i + 1].strip().startswith("mod "):
            break
        if not s.startswith("//"):
            out.append((i, line))
    return out


def rule_curve() -> list[str]:
    kinds = {
        "Affine": re.compile(r"^\s*pub(\(crate\))?\s+struct\s+Affine\b"),
        "Jacobian": re.compile(r"^\s*pub(\(crate\))?\s+struct\s+Jacobian\b"),
        "comb table": re.compile(r"^\s*(pub(\([a-z]+\))?\s+)?struct\s+\w*(Comb|FixedBase)\w*Table\b"),
    }
    found: dict[str, list[str]] = {k: [] for k in kinds}
    for f in tracked("crates/shangmi/src/*.rs"):
        for i, line in enumerate(f.read_text().splitlines()):
            for k, rx in kinds.items():
                if rx.search(line):
                    found[k].append(f"{rel(f)}:{i + 1}")
    out = []
    for k, v in found.items():
        if len(v) <= 1:
            continue
        out.append(f"{k}: {len(v)} definitions: {', '.join(v)}")
    return out


# The valgrind client-request sequence (rol $3,$13,$61,$51 on rdi): issuing
# it is what marks memory undefined, so exactly one file may contain it.
CLIENT_REQUEST = re.compile(r"rol\s+\$?(edi|rdi)|rol rdi, 3")


def rule_ctime() -> list[str]:
    bad = []
    issuers = [f for f in tracked("crates/*.rs") if CLIENT_REQUEST.search(f.read_text())]
    if len(issuers) > 1:
        bad.append("valgrind client requests issued from several files: " + ", ".join(rel(f) for f in issuers))
    for f in tracked("crates/shangmi/examples/*"):
        if re.search(r"ctime|ctgrind", f.name):
            bad.append(f"{rel(f)}: a constant-time harness among the examples")
    return bad


TIMING = re.compile(r"\bInstant\b|_rdtsc|\bblack_box\b|\bSystemTime\b")


def rule_examples() -> list[str]:
    bad = []
    for f in tracked("crates/*/examples/*.rs"):
        for i, line in enumerate(f.read_text().splitlines()):
            if TIMING.search(line):
                bad.append(f"{rel(f)}:{i + 1}: {line.strip()[:100]}")
    return bad


# How the work was organised, not what the project is. (TLS sessions are the
# project's subject, so "session" alone is not flagged: only the phrases that
# number or place a working session.)
WORDING = re.compile(
    r"\b(this|previous|earlier|next|later|last|an earlier|a later) session\b"
    r"|\bsessions? [0-9]+\b|\(session [0-9]+\)"
    r"|\bworktrees?\b|\bwork(ing)? branch(es)?\b|\bwork rounds?\b|\bround [0-9]+ of\b"
    r"|\b(sub-?)?agents?\b|\b[a-z]+[0-9]+ branch\b|\bsm3w\b|\bsm2z4\b|\bsm3z4\b|\bhouse[0-9]+\b"
    r"|\bissue [0-9]+\b|/work/",
    re.I,
)
WORDING_FILES = ("*.rs", "*.py", "*.pyi", "*.sh", "*.md", "*.toml", "*.yml", ".ci/run")


def rule_wording() -> list[str]:
    bad = []
    this = Path(__file__).resolve()
    for f in tracked(*WORDING_FILES):
        if f.resolve() == this:
            continue
        for i, line in enumerate(f.read_text(errors="replace").splitlines()):
            if WORDING.search(line):
                bad.append(f"{rel(f)}:{i + 1}: {line.strip()[:100]}")
    return bad


RULES = {
    "path": rule_path,
    "oid": rule_oid,
    "curve": rule_curve,
    "ctime": rule_ctime,
    "examples": rule_examples,
    "wording": rule_wording,
}


def main() -> int:
    failed = 0
    for name, rule in RULES.items():
        bad = rule()
        if bad:
            failed += 1
            print(f"{name}: FAIL ({len(bad)})")
            for b in bad[:40]:
                print(f"   {b}")
            if len(bad) > 40:
                print(f"   ... {len(bad) - 40} more")
        else:
            print(f"{name}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
