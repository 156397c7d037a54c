"""The domains of abstract types, for quantifiers over them.

An abstract type (``type T;``, a polymorphic node's type parameter) is encoded as ``int``,
which is sound while nothing quantifies over it: a quantifier-free formula about values that
are only compared cannot tell ``T`` from the integers.  A quantifier can
(``forall (v1, v2: T) v1 = v2`` is false of the integers, true of a one-value type), so where
one ranges over ``T`` the translation gives ``T`` a domain: a set of integers ``%dom.T``
fixed over the run, non-empty (a witness ``%dom.T.%some`` is in it) and holding every value of
``T`` the system has (each symbol of type ``T``, created before or after the domain: inputs,
states, choices, constants).  The quantifier ranges over the domain, so the verdicts hold of
every interpretation of ``T`` (a countable one: first-order formulas cannot tell more).

Values of ``T`` inside sets, maps and recursive datatypes are not bound to the domain here
(their members would need a quantified constraint): a quantifier over ``T`` beside them is
refused, located.

The simulator reads the domain from the trace (:func:`simulated`) and evaluates the quantifier
over it where it is finite; an infinite one leaves the replay inconclusive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pysmt.fnode import FNode

from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.native import reachable
from kinduct.frontends.lucent.core.types import DOMAIN, INT, Recursive, T, scalar_paths
from kinduct.kernel.errors import SourceLocation, UnsupportedError

if TYPE_CHECKING:
    from kinduct.frontends.lucent.core import ast as A
    from kinduct.frontends.lucent.smt.inst_api import Translator

def abstract_names(t: T, seen: set[int] | None = None) -> set[str]:
    """The abstract types among the leaves of ``t`` (inside sets, maps and recursive
    datatypes included)."""
    seen = set() if seen is None else seen
    out = set()
    for _, lt in scalar_paths(t):
        if lt.kind == "abstract":
            out.add(lt.name)
        elif lt.kind in ("set", "lift", "map"):
            for item in lt.items:
                out |= abstract_names(item, seen)
        elif _recursive(lt) and id(lt.items) not in seen:
            for x in reachable(lt):
                seen.add(id(x.items))
            for x in reachable(lt):
                for _, fields in x.items:
                    for _, ft in fields:
                        out |= abstract_names(ft, seen)
    return out


def _recursive(t: T) -> bool:
    return t.kind == "adt" and isinstance(t.items, Recursive)


class Domains:
    """The domains of one translation's abstract types, created where a quantifier needs one."""

    def __init__(self, tr: Translator) -> None:
        self.tr = tr
        self.sets: dict[str, FNode] = {}
        #: The symbols of each abstract type created so far, and the containers holding one.
        self.leaves: dict[str, list[FNode]] = {}
        self.containers: dict[str, list[str]] = {}
        self.where: dict[str, A.Pos] = {}

    def leaf(self, sym: FNode, lt: T) -> None:
        """Record a new symbol of leaf type ``lt`` (bound to its domain where there is one)."""
        if lt.kind == "abstract":
            self.leaves.setdefault(lt.name, []).append(sym)
            if lt.name in self.sets:
                self._member(lt.name, sym)
        elif lt.kind in ("set", "lift") or _recursive(lt):
            for tname in abstract_names(lt if _recursive(lt) else T("tuple", items=lt.items)):
                self.containers.setdefault(tname, []).append(sym.symbol_name())
                if tname in self.sets:
                    self._refuse(tname)

    def member(self, tname: str, term: FNode, pos: A.Pos) -> FNode:
        """``term`` is in the domain of ``tname`` (a quantifier at ``pos`` ranges over it)."""
        if tname not in self.sets:
            self.where[tname] = pos
            if tname in self.containers:
                self._refuse(tname)
            tr = self.tr
            dom = tr.state(naming.domain(tname), DOMAIN)
            tr.b.update(dom, dom)
            self.sets[tname] = dom
            some = tr.state(f"{naming.domain(tname)}.%some", INT)
            tr.b.update(some, some)
            for sym in [some, *self.leaves.get(tname, [])]:
                self._member(tname, sym)
        return self.tr.mgr.Select(self.sets[tname], term)

    def _member(self, tname: str, sym: FNode) -> None:
        tr = self.tr
        guard, tr.guard = tr.guard, None  # a value of the type at every step
        tr.assume(tr.mgr.Select(self.sets[tname], sym))
        tr.guard = guard

    def _refuse(self, tname: str) -> None:
        pos = self.where[tname]
        lines = self.tr.checked.text.splitlines()
        line = lines[pos.line - 1] if 0 < pos.line <= len(lines) else None
        raise UnsupportedError(f"a quantifier over the abstract type {tname} beside sets, maps or "
                               "recursive datatypes of it (their members are not bound to the "
                               "type's domain)",
                               SourceLocation(self.tr.file, pos.line, pos.col), line)
