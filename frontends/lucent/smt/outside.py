"""Out-of-range array reads in the translation: unspecified values, never clamped, but within a
step a function of the array read and the index, as in Kind 2 v3.0.0, which proves
``a[i] = a[i]`` and ``i = j => a[i] = a[j]``, and falsifies ``pre (a[i]) = a[i]`` (an array
stream's out-of-range part is free at each step) and ``a[i] = b[i]`` for two arrays of equal
elements (each stream has its own)."""

from __future__ import annotations

from pysmt.fnode import FNode

#: Beyond this many out-of-range reads of one array, no congruence is added (quadratic in
#: their number): a counterexample that reads one index twice with two values is then unknown
#: on replay.
MAX_CONGRUENT = 40


def outside_congruence(mgr, reads: dict[tuple[FNode, ...], list[tuple[FNode, list[FNode]]]]) -> list[FNode]:
    """Reads of one array (the same element terms) at equal indices have equal values;
    ``reads``: by array, each read's index and value (its leaves)."""
    out = []
    for group in reads.values():
        if len(group) > MAX_CONGRUENT:
            continue
        for n, (i1, v1) in enumerate(group):
            for i2, v2 in group[n + 1:]:
                same = mgr.And([mgr.EqualsOrIff(x, y) for x, y in zip(v1, v2, strict=True)])
                out.append(same if i1 is i2 else mgr.Implies(mgr.Equals(i1, i2), same))
    return out
