"""Per-declaration fingerprints of a parsed program: what a node's verdicts depend on.

A declaration's *shape* hashes its syntax tree without positions (so comments, blank lines
and moves leave it alone); its *fingerprint* hashes its shape with the shapes of every
declaration it reaches (the nodes it calls, the contracts it imports, the types and constants
it names, and theirs, transitively).  Two checks of a node with equal fingerprints (and equal
options) decide the same problem, so the second may reuse the first's verdicts.

A name counts as a reference wherever it occurs in the declaration's tree, also where a local
stream happens to share a global's name: that over-approximates the dependencies, which only
costs a re-check.
"""

from __future__ import annotations

import dataclasses
import hashlib
from fractions import Fraction

from kinduct.frontends.lucent.core import ast as A

#: Fields that say where, not what.
_PLACES = frozenset({"pos", "ty", "decl_pos", "clock_pos", "text"})


def _declarations(program: A.Program) -> dict[str, object]:
    out: dict[str, object] = {}
    for d in program.types:
        out[f"type {d.name}"] = d
    for d in program.consts:
        out[f"const {d.name}"] = d
    for d in program.nodes + program.contracts:
        out[f"node {d.name}"] = d
    return out


class _Shape:
    """The position-free hash of one tree, and the global names it mentions."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.mentions: set[str] = set()
        self.parts: list[str] = []

    def feed(self, obj: object) -> None:
        stack: list[object] = [obj]
        while stack:
            x = stack.pop()
            if isinstance(x, str):
                self.parts.append(repr(x))
                if x in self.names:
                    self.mentions.add(x)
            elif isinstance(x, A.Pos):  # a place, also inside tuples (an equation's left side)
                continue
            elif x is None or isinstance(x, (bool, int, float, Fraction)):
                self.parts.append(repr(x))
            elif dataclasses.is_dataclass(x) and not isinstance(x, type):
                self.parts.append("(" + type(x).__name__)
                stack.append(")")
                values = [getattr(x, f.name) for f in dataclasses.fields(x) if f.name not in _PLACES]
                stack.extend(reversed(values))
            elif isinstance(x, (list, tuple)):
                self.parts.append("[")
                stack.append("]")
                stack.extend(reversed(x))
            elif isinstance(x, dict):
                self.parts.append("{")
                stack.append("}")
                for k in sorted(x, key=repr, reverse=True):
                    stack.extend((x[k], k))
            else:
                self.parts.append(type(x).__name__)

    def digest(self) -> str:
        return hashlib.sha256("\x00".join(self.parts).encode()).hexdigest()


def fingerprints(program: A.Program) -> dict[str, str]:
    """Every node's, function's and contract's fingerprint, by name."""
    decls = _declarations(program)
    plain = frozenset(key.split(" ", 1)[1] for key in decls)
    shapes: dict[str, str] = {}
    mentions: dict[str, set[str]] = {}
    for key, decl in decls.items():
        shape = _Shape(plain)
        shape.feed(decl)
        shapes[key] = shape.digest()
        mentions[key] = {k for k in decls if k != key and k.split(" ", 1)[1] in shape.mentions}
    out: dict[str, str] = {}
    for key in decls:
        if not key.startswith("node "):
            continue
        reached = _closure(key, mentions)
        h = hashlib.sha256()
        for k in sorted(reached):
            h.update(f"{k}={shapes[k]};".encode())
        out[key.split(" ", 1)[1]] = h.hexdigest()
    return out


def _closure(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen
