"""The document's well-formedness checks, each reported at the place it fails (exit 3).

- No exit marker ``E`` outside an iteration (§8.1, property 2), and none directly at the top
  level of an iteration body, where it would end the first round unconditionally (the
  implementation's ``while`` check, §7.1.2).
- Progress (rule Till-E): every path through an iteration body reads a value or reaches ``E``;
  the abstraction is the document's ``effects`` (Figure 7): a path *reads* (↑), *exits* (↓),
  both (↕) or neither (∘), and ``∘ ∉ effects(body)``.
- Every iteration can be left: some path through its body reaches ``E`` (the loose form of
  property 3: ``effects(body) ≠ {↑}``).
- An iteration's exit condition must be changed by a read in its body: a branch of the body that
  leads to ``E`` and whose condition mentions variables must mention one the body reads (the
  implementation's ``while`` check, §7.1.2).  Output-driven loops cannot be written at all: only
  reads change the state conditions see.
- ``x_C`` is used only where ``x`` has surely been read (property 1); every variable a term
  names is read somewhere.
- (Checked by the parser) an output has at least one term besides ``ε``.
"""

from __future__ import annotations

from kinduct.frontends.iospec import ast as A
from kinduct.kernel.errors import InputError

# An effect is (reads, exits).
Effect = tuple[bool, bool]


def effects(seq: A.Seq) -> frozenset[Effect]:
    """The set of effects of the paths through ``seq`` (exits of iterations nested in ``seq``
    are internal to them)."""
    result: set[Effect] = {(False, False)}
    for item in seq.items:
        step = _item_effects(item)
        result = {e if e[1] else (e[0] or s[0], s[1]) for e in result for s in step}
    return frozenset(result)


def _item_effects(item: A.Action) -> frozenset[Effect]:
    if isinstance(item, A.Read):
        return frozenset({(True, False)})
    if isinstance(item, A.Write):
        return frozenset({(False, False)})
    if isinstance(item, A.Exit):
        return frozenset({(False, True)})
    if isinstance(item, A.Branch):
        return effects(item.then) | effects(item.orelse)
    body = effects(item.body)
    leave = {(r, False) for r, x in body if x}
    if any(not x for _, x in body):
        leave |= {(True, False)} if leave else set()
    return frozenset(leave)


def _mentions(term: A.Term | None, current_only: bool = False) -> set[str]:
    if term is None or isinstance(term, A.Const):
        return set()
    if isinstance(term, A.Current):
        return {term.var}
    if isinstance(term, A.All):
        return set() if current_only else {term.var}
    out: set[str] = set()
    for arg in term.args:
        out |= _mentions(arg, current_only)
    return out


def _current_uses(term: A.Term | None) -> list[A.Current]:
    if term is None or isinstance(term, A.Const | A.All):
        return []
    if isinstance(term, A.Current):
        return [term]
    return [u for arg in term.args for u in _current_uses(arg)]


def _reads(seq: A.Seq) -> set[str]:
    out: set[str] = set()
    for item in seq.items:
        if isinstance(item, A.Read):
            out.add(item.var)
        elif isinstance(item, A.Branch):
            out |= _reads(item.then) | _reads(item.orelse)
        elif isinstance(item, A.Loop):
            out |= _reads(item.body)
    return out


def _has_exit(seq: A.Seq) -> bool:
    """Whether ``seq`` contains an ``E`` of the enclosing iteration (not of a nested one)."""
    for item in seq.items:
        if isinstance(item, A.Exit):
            return True
        if isinstance(item, A.Branch) and (_has_exit(item.then) or _has_exit(item.orelse)):
            return True
    return False


class _Checker:
    def __init__(self, spec: A.Spec) -> None:
        self.spec = spec
        self.read_anywhere = _reads(spec.body)

    def fail(self, message: str, loc: A.Loc) -> InputError:
        return InputError.at(message, self.spec.file, self.spec.source, loc.line or None,
                             loc.column or None)

    def run(self) -> None:
        self.top_level_exit(self.spec.body)
        self.loops(self.spec.body)
        self.defined(self.spec.body, frozenset(), [])

    def top_level_exit(self, seq: A.Seq) -> None:
        for item in seq.items:
            if isinstance(item, A.Exit):
                raise self.fail("exit marker E outside an iteration (write (...)^E around the "
                                "part to repeat)", item.loc)
            if isinstance(item, A.Branch):
                self.top_level_exit(item.then)
                self.top_level_exit(item.orelse)

    def loops(self, seq: A.Seq) -> None:
        for item in seq.items:
            if isinstance(item, A.Branch):
                self.loops(item.then)
                self.loops(item.orelse)
            elif isinstance(item, A.Loop):
                self.loop(item)
                self.loops(item.body)

    def loop(self, loop: A.Loop) -> None:
        for item in loop.body.items:
            if isinstance(item, A.Exit):
                raise self.fail("an exit marker directly in an iteration body ends the first "
                                "round unconditionally, so the body never repeats (put E in a "
                                "branch)", item.loc)
        eff = effects(loop.body)
        if (False, False) in eff:
            raise self.fail("a path through this iteration body neither reads a value nor reaches "
                            "E, so it would repeat without progress (every round must read or "
                            "exit)", loop.loc)
        if not any(x for _, x in eff):
            raise self.fail("this iteration can never be left: no path through its body reaches "
                            "an exit marker E", loop.loc)
        changed = _reads(loop.body)
        self.exit_conditions(loop.body, changed)

    def exit_conditions(self, seq: A.Seq, changed: set[str]) -> None:
        for item in seq.items:
            if not isinstance(item, A.Branch):
                continue
            if _has_exit(item.then) or _has_exit(item.orelse):
                named = _mentions(item.cond)
                if named and not named & changed:
                    names = ", ".join(sorted(named))
                    raise self.fail(f"this condition decides when the iteration ends, but no read "
                                    f"in the iteration body changes {names}, so it never "
                                    "changes from one round to the next", item.loc)
            self.exit_conditions(item.then, changed)
            self.exit_conditions(item.orelse, changed)

    def terms(self, terms: tuple[A.Term | None, ...], defs: frozenset[str]) -> None:
        for term in terms:
            for var in sorted(_mentions(term)):
                if var not in self.read_anywhere:
                    raise self.fail(f"the variable {var!r} is never read (no [> {var} : ...] "
                                    "in the specification)", _first_loc(term, var))
            for use in _current_uses(term):
                if use.var not in defs:
                    raise self.fail(f"{use.var}_C is used before {use.var} has surely been read "
                                    f"(on some path no [> {use.var} : ...] comes first; "
                                    f"{use.var}_A is the empty list until then)", use.loc)

    def defined(self, seq: A.Seq, defs: frozenset[str],
                exits: list[frozenset[str]]) -> frozenset[str] | None:
        """The variables surely read after ``seq`` (``None``: every path left by ``E``); the
        variables surely read at each ``E`` are added to ``exits``."""
        for item in seq.items:
            if isinstance(item, A.Read):
                defs = defs | {item.var}
            elif isinstance(item, A.Write):
                self.terms(item.options, defs)
            elif isinstance(item, A.Exit):
                exits.append(defs)
                return None
            elif isinstance(item, A.Branch):
                self.terms((item.cond,), defs)
                ends = [d for d in (self.defined(item.then, defs, exits),
                                    self.defined(item.orelse, defs, exits)) if d is not None]
                if not ends:
                    return None
                defs = frozenset.intersection(*ends)
            else:
                inner: list[frozenset[str]] = []
                self.defined(item.body, defs, inner)
                if not inner:
                    return None
                defs = frozenset.intersection(*inner)
        return defs


def _first_loc(term: A.Term | None, var: str) -> A.Loc:
    if isinstance(term, A.Current | A.All) and term.var == var:
        return term.loc
    if isinstance(term, A.Apply):
        for arg in term.args:
            loc = _first_loc(arg, var)
            if loc != A.NOWHERE:
                return loc
    return A.NOWHERE


def check(spec: A.Spec) -> None:
    """Raise :class:`InputError` at the first well-formedness violation of ``spec``."""
    _Checker(spec).run()
