"""Lists import cycles between the modules of a Rust crate (default: the core).

Usage: python scripts/module_cycles.py [crates/shangmi/src]

A module is a file (`a/b.rs` or `a/b/mod.rs` is `crate::a::b`). A module
depends on another when its code names it: `crate::x::y`, `super::y`,
`self::y` in `use` lines or paths. References between a module and its own
ancestors are not counted (a parent declares its children; a child naming
its parent's items is Rust's normal layering). Every other dependency circle
(`a` names `b` and `b` names `a`, directly or through others) is printed as
one strongly connected component; the exit status is 1 if there is any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
COMMENT = re.compile(r"//.*$", re.M)


def module_of(root: Path, f: Path) -> tuple[str, ...]:
    parts = list(f.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/shangmi/src")
    files = {module_of(root, f): f for f in sorted(root.rglob("*.rs"))}
    mods = set(files)
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in mods}
    for m, f in files.items():
        text = COMMENT.sub("", f.read_text())
        for kind, rest in PATH.findall(text):
            names = rest.split("::")[1:]
            if kind == "crate":
                base: tuple[str, ...] = ()
            elif kind == "self":
                base = m
            else:  # super
                base = m[:-1]
                while names and names[0] == "super":
                    names.pop(0)
                    base = base[:-1]
            target = base
            best = base if base in mods else None
            for n in names:
                target = target + (n,)
                if target in mods:
                    best = target
            if best is None or best == m:
                continue
            # Ancestor/descendant references are layering, not cycles.
            if best == m[: len(best)] or m == best[: len(m)]:
                continue
            graph[m].add(best)
    # Tarjan's strongly connected components.
    index: dict[tuple[str, ...], int] = {}
    low: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = []
    on: set[tuple[str, ...]] = set()
    comps: list[list[tuple[str, ...]]] = []

    def visit(v: tuple[str, ...]) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in comps:
        names = sorted("::".join(("crate",) + c) for c in comp)
        print("cycle: " + " <-> ".join(names))
    print(f"{len(mods)} modules, {sum(len(e) for e in graph.values())} dependencies, {len(comps)} cycles")
    return 1 if comps else 0


if __name__ == "__main__":
    raise SystemExit(main())
