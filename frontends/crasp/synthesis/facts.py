"""Memoised facts about the search's expressions: size and the rule names read.

The search builds each new right-hand side from an old one by replacing one path: every other
subexpression is the same object as before.  So the facts of a node are computed from its
children's (already memoised) facts, keyed by object identity: asking about a new expression
costs its new nodes only, not a walk of the whole tree.  An entry keeps its expression alive, so
an id is never reused while its entry exists.
"""

from __future__ import annotations

from kinduct.frontends.crasp import ast as A

_NO_REFS: frozenset[str] = frozenset()
_FACTS: dict[int, tuple[A.Expr, int, frozenset[str]]] = {}
_LIMIT = 400_000


def facts(e: A.Expr) -> tuple[int, frozenset[str]]:
    """(number of AST nodes of ``e``, names of the rules ``e`` reads)."""
    got = _FACTS.get(id(e))
    if got is not None and got[0] is e:
        return got[1], got[2]
    t = type(e)
    if t is A.Ref:
        n, refs = 1, frozenset((e.name,))
    else:
        n, refs = 1, _NO_REFS
        for c in A.children(e):
            cn, cr = facts(c)
            n += cn
            if cr:
                refs = cr if not refs else refs | cr
    if len(_FACTS) > _LIMIT:
        _FACTS.clear()
    _FACTS[id(e)] = (e, n, refs)
    return n, refs


def size(e: A.Expr) -> int:
    """AST nodes of ``e``."""
    got = _FACTS.get(id(e))
    if got is not None and got[0] is e:
        return got[1]
    return facts(e)[0]


def references(e: A.Expr) -> frozenset[str]:
    """The rule names ``e`` reads."""
    got = _FACTS.get(id(e))
    if got is not None and got[0] is e:
        return got[2]
    return facts(e)[1]
