"""Kind 2's names for generated obligations (refinement and subrange types).

A value with a refinement type owes one obligation per constrained component (a record's
fields, a tuple's items, an array's elements as one), named by the obligation's kind and
position (``SubRange[L5C3]``) behind its site (a callee instance, an import site). Where one
position yields several (the variables of one ``var`` section, the fields of a record), Kind 2
numbers them ``_1`` … ``_n`` in declaration order; this module does the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from kinduct.frontends.lucent.core.checked import Prop

X = TypeVar("X")


def named(entries: Sequence[tuple[X, Prop]]) -> list[tuple[X, Prop]]:
    """Each entry (a term and its obligation ``Prop``, whose ``ref`` is the whole refinement)
    split into one per constrained component, named as Kind 2 names it (``Prop.name``)."""
    pieces = []
    for term, prop in entries:
        assert prop.ref is not None
        for piece in prop.ref.pieces():
            base = f"{prop.site}{piece.kind_name}[L{prop.pos.line}C{prop.pos.col}]"
            pieces.append((term, replace(prop, name=base, ref=piece)))
    total = Counter(p.name for _, p in pieces)
    seen: Counter[str] = Counter()
    out = []
    for term, prop in pieces:
        if total[prop.name] > 1:
            seen[prop.name] += 1
            prop = replace(prop, name=f"{prop.name}_{seen[prop.name]}")
        out.append((term, prop))
    return out
