"""The concrete semantics of Lucent: a step-by-step interpreter over Python values.

It imports nothing of the SMT translation (``smt/``, its sibling stage): it reads the checked
model and ``core/`` only, and names the nondeterministic choices (unguarded ``pre`` at step 0,
``any``, free constants, imported node outputs, division by zero) through ``core.names``, as the
translation does; an *oracle* supplies them: when replaying a counterexample the
oracle reads them from the trace, otherwise it picks a default value.  Every node instance is
stepped at every step, whether or not its value is used, as the synchronous semantics says;
except on a lazy branch's or an activation's clock (:mod:`.lazy`, :mod:`.activation`): a node
called there steps only where the clock ticks, and a ``pre`` there remembers the value of the
last tick; a call with ``restart`` starts its instance (and those below) over where it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.checked import (
    BoundRead,
    Checked,
    ConstRef,
    Node,
    Quantified,
    Refines,
    SymDef,
)
from kinduct.frontends.lucent.core.clocks import Clock, clock_of
from kinduct.frontends.lucent.core.types import (
    Adt,
    T,
    Variant,
    adt_fields,
    recursive_type,
    regroup,
    scalar_paths,
)
from kinduct.frontends.lucent.core.types import leaves as value_leaves
from kinduct.frontends.lucent.core.values import SimulationError, binop_value
from kinduct.frontends.lucent.sim import domains, quantified, recursive, symarrays_sim
from kinduct.frontends.lucent.sim.defaults import default_value

Oracle = Callable[[str, T, int], Any]


def default_oracle(name: str, t: T, step: int) -> Any:
    return default_value(t)


class Instance:
    """One node instance: its streams at the current step and its memory of the last step."""

    def __init__(self, sim: Simulator, node: Node, prefix: str, clocked: bool = False,
                 restartable: bool = False) -> None:
        """``clocked``: called (or inside a node called) in a lazy branch or activated: it
        steps only where the clock ticks; ``restartable``: called (or inside a node called)
        with ``restart``: it may start over."""
        self.sim = sim
        self.node = node
        self.prefix = prefix
        #: Only the interface and the contract exist (an imported node, or a node abstracted by
        #: its contract): outputs come from the oracle, only the ghost streams are computed.
        self.abstract = bool(node.imported or ((prefix or sim.abstract_main)
                                               and node.name in sim.abstract))
        self.defs: dict[str, tuple[list[str], A.Expr]] = {}
        for names, e in node.eqs:
            if self.abstract and not all(n in node.ghosts for n in names):
                continue
            for n in names:
                self.defs[n] = (names, e)
        self.children: dict[str, Instance] = {}
        calls = node.calls if not self.abstract else [
            c for c in node.calls if c.uid in _call_uids(_contract_exprs(node))]
        self.calls = calls
        for c in calls:
            self.children[c.uid] = Instance(sim, sim.checked.nodes[c.name], f"{prefix}{c.site}.",
                                            clocked or clock_of(c) is not None,
                                            restartable or getattr(c, "restart", None) is not None)
        self.clocked = clocked
        self.restartable = restartable
        #: How many steps it made; the names of its clocks that ticked at an earlier step, and
        #: whether each ticks at the current one.
        self.ticks = 0
        self.seen: set[str] = set()
        self.ticking: dict[str, bool] = {}
        self.pre_mem: dict[str, Any] = {}
        self.cur: dict[str, Any] = {}
        self.memo: dict[str, Any] = {}
        self.history: list[dict[str, Any]] = []
        #: Whether the instance stepped, per step (not where its clock did not tick).
        self.stepped: list[bool] = []
        self.step_no = -1
        self.watches: list[tuple[str, Callable[[Instance], Any]]] = []
        self.watched: dict[str, Any] = {}
        #: Circularly defined streams (``Node.cut``) whose equation failed at the current step.
        self.unsatisfied: list[str] = []

    # -- one step --
    def step(self, k: int, inputs: Sequence[Any]) -> list[Any]:
        self.step_no = k
        self.cur = dict(zip(self.node.inputs, inputs, strict=True))
        self.memo = {}
        self.ticking = {}
        node = self.node
        if self.abstract:  # only the interface and the contract's ghosts exist
            outs = [self.sim.oracle(self.prefix + n, node.types[n], k) for n in node.outputs]
            self.cur.update(zip(node.outputs, outs, strict=True))
            for n in node.ghosts:
                self.value(n)
            for c in self.calls:
                if self.active(clock_of(c)):
                    self.eval(c)
                else:
                    self.children[c.uid].skip(k)
            self.watched = {key: fn(self) for key, fn in self.watches}
            new_mem = dict(self.pre_mem)
            for p in node.pres:
                try:
                    if self.active(clock_of(p)):
                        new_mem[p.uid] = self.eval(p.arg)
                except (KeyError, SimulationError):
                    continue  # a 'pre' of the body, which the abstraction does not have
            return self._end(new_mem)
        # a circular definition is a constraint: its value comes from the oracle
        for n in sorted(node.untangled | (node.cut if self.ticks > 0 else set())):
            self.cur[n] = self.sim.oracle(self.prefix + n, node.types[n], k)
        for n in node.streams:
            self.value(n)
        for c in node.calls:
            if self.active(clock_of(c)):
                self.eval(c)
            else:
                self.children[c.uid].skip(k)
        self.unsatisfied = [n for n in sorted(node.cut | node.untangled)
                            if (self.ticks > 0 or n in node.untangled) and not self._satisfied(n)]
        self.watched = {key: fn(self) for key, fn in self.watches}
        new_mem = dict(self.pre_mem)
        new_mem.update({p.uid: self.eval(p.arg) for p in node.pres if self.active(clock_of(p))})
        return self._end(new_mem)

    def _end(self, new_mem: dict[str, Any]) -> list[Any]:
        """Close the current step: the memories of ``pre`` become ``new_mem``."""
        ticked = []
        for c in self.node.clocks:  # before the memories change: a condition may read them
            try:
                if self.active(c):
                    ticked.append(c.name)
            except (KeyError, SimulationError):
                continue  # a branch of the body, which an abstracted node does not have
        # only now: a condition read above may hold a '->' of another clock, still first here
        self.seen.update(ticked)
        self.pre_mem = new_mem
        self.ticks += 1
        self.history.append(dict(self.cur))
        self.stepped.append(True)
        return [self.cur[n] for n in self.node.outputs]

    def skip(self, k: int) -> None:
        """Step ``k`` where the instance (called in a lazy branch) does not step: it has no
        values there, and keeps its memories."""
        self.step_no = k
        self.cur, self.watched = {}, {}
        self.history.append({})
        self.stepped.append(False)
        for child in self.children.values():
            child.skip(k)

    def restart(self) -> None:
        """Start over (a call's ``restart`` holds): the instance and those below it count their
        clocks' ticks again from the current step; their memories are kept (an unguarded
        ``pre`` at a first tick reads the oracle)."""
        self.ticks = 0
        self.seen = set()
        for child in self.children.values():
            child.restart()

    def active(self, clock: Clock | None) -> bool:
        """Whether the lazy branch of ``clock`` is selected at the current step (None: the
        instance steps)."""
        if clock is None:
            return True
        got = self.ticking.get(clock.name)
        if got is None:
            got = self.active(clock.parent) and bool(self.eval(clock.cond)) is clock.positive
            self.ticking[clock.name] = got
        return got

    def first(self, clock: Clock | None) -> bool:
        """Whether this is the first step where ``clock`` ticks (None: the instance steps)."""
        return self.ticks == 0 if clock is None else clock.name not in self.seen

    def _satisfied(self, name: str) -> bool:
        names, e = self.defs[name]
        v = self.eval(e)
        got = [self.cur[n] for n in names]
        return (got[0] == v) if len(names) == 1 else got == list(_flatten(v))

    def value(self, name: str) -> Any:
        if name in self.cur:
            return self.cur[name]
        if name not in self.defs:
            v = self.sim.oracle(self.prefix + name, self.node.types[name], self.step_no)
            self.cur[name] = v
            return v
        names, e = self.defs[name]
        self.cur[name] = _PENDING
        v = self.eval(e)
        if len(names) == 1:
            self.cur[names[0]] = v
        else:
            for n, x in zip(names, _flatten(v), strict=True):
                self.cur[n] = x
        return self.cur[name]

    def holds(self, value: Any, ref: Any) -> bool:
        """Whether ``value`` has the refinement type ``ref`` here (:func:`refinement_holds`)."""
        return refinement_holds(self, value, ref)

    def eval(self, e: A.Expr) -> Any:  # noqa: C901 - one case per construct
        if isinstance(e, A.Lit):
            return e.value
        if isinstance(e, A.Var):
            v = self.value(e.name)
            if v is _PENDING:
                raise SimulationError(f"circular definition of {e.name}")
            return v
        if isinstance(e, ConstRef):
            return self.sim.const_value(e.name, e.ty)
        if isinstance(e, Refines):
            return refinement_holds(self, self.eval(e.arg), e.ref)
        if isinstance(e, Quantified):
            return quantified.evaluate(e, self.eval, lambda t: domains.simulated(self.sim.oracle, t))
        if isinstance(e, A.Unop):
            if e.op == "pre":
                if self.clocked or self.restartable or clock_of(e) is not None:
                    if self.restartable and not getattr(e, "guarded", False) and \
                            self.first(clock_of(e)):  # arbitrary again after a restart
                        return self.sim.oracle(naming.initial(self.prefix, e.uid), e.ty, self.step_no)
                    if e.uid in self.pre_mem:  # the last tick's value
                        return self.pre_mem[e.uid]
                    return self.sim.oracle(self.prefix + e.uid, e.ty, 0)
                if self.step_no == 0:
                    if getattr(e, "guarded", False) and isinstance(e.arg, A.Var) and \
                            e.ty.kind not in ("record", "array", "tuple", "symarray"):
                        # never read at step 0; the translation's memory of the stream
                        return self.sim.oracle(naming.pre_memory(self.prefix, e.arg.name), e.ty, 0)
                    return self.sim.oracle(self.prefix + e.uid, e.ty, 0)
                return self.pre_mem[e.uid]
            a = self.eval(e.arg)
            if e.ty.kind == "machine":  # a conversion, '!' or unary minus: wraps around
                return machine.unop_value(e.op, a, e.ty)
            if e.op == "not":
                return not a
            if e.op == "neg":
                return -a
            if e.op == "to_real":
                return Fraction(a)
            if e.op == "to_int":
                return int(a // 1)
        if isinstance(e, A.Binop):
            if e.op == "->":
                return self.eval(e.left) if self.first(clock_of(e)) else self.eval(e.right)
            a = self.eval(e.left)
            b = self.eval(e.right)
            try:
                return binop_value(e.op, a, b, e.ty, e.right.ty)
            except ZeroDivisionError:
                k = self.step_no
                name = self.prefix + e.uid
                if not (e.op == "/" and e.ty.kind == "real"):
                    name = naming.remainder(name) if e.op == "mod" else naming.quotient(name)
                return self.sim.divided_by_zero(e.op, a, self.sim.oracle(name, e.ty, k), k)
        if isinstance(e, A.Ite):
            c = self.eval(e.cond)
            return self.eval(e.then) if c else self.eval(e.orelse)
        if isinstance(e, A.Call):
            if e.uid in self.memo:
                return self.memo[e.uid]
            child = self.children[e.uid]
            args = regroup([x for a in e.args for x in _flatten_typed(self.eval(a), a.ty)],
                           [child.node.types[n] for n in child.node.inputs])
            restart = getattr(e, "restart", None)
            if restart is not None and self.eval(restart):
                child.restart()
            outs = child.step(self.step_no, args)
            v = outs[0] if len(outs) == 1 else list(outs)
            self.memo[e.uid] = v
            return v
        if isinstance(e, (A.TupleE, A.ArrayLit)):
            return [self.eval(x) for x in e.items]
        if isinstance(e, A.Index):
            if e.arg.ty.kind == "symarray" or isinstance(e, BoundRead):
                return symarrays_sim.read(self, e)
            a = self.eval(e.arg)
            i = self.eval(e.index)
            if 0 <= i < len(a):
                return a[i]
            # out of range, the read is unspecified (as in Kind 2): a choice of the oracle;
            # within a step, a function of the array stream read and the index
            value = self.sim.oracle(self.prefix + e.uid, e.ty, self.step_no)
            if isinstance(e.arg, A.Var):
                self.sim.read_outside(self.prefix + e.arg.name, i, value, self.step_no)
            return value
        if isinstance(e, A.Update):
            a = list(self.eval(e.arg))
            i = self.eval(e.index)
            v = self.eval(e.value)
            if 0 <= i < len(a):
                a[i] = v
            return a
        if isinstance(e, A.Field):
            if recursive_type(e.arg.ty):
                return recursive.evaluate(self, e)
            return self.eval(e.arg)[e.name]
        if isinstance(e, A.RecordLit):
            return {f: self.eval(x) for f, x in e.fields}
        if (isinstance(e, A.Construct) and recursive_type(e.ty)) or \
                (isinstance(e, A.Tester) and recursive_type(e.arg.ty)):
            return recursive.evaluate(self, e)
        if isinstance(e, A.Construct):  # other constructors' fields: the oracle's choice
            own = {f"{e.ctor}.{f}": a for (f, _), a in zip(e.ty.items[e.index][1], e.args,
                                                           strict=True)}
            return Adt({"%tag": e.index, **{
                k: self.eval(own[k]) if k in own
                else self.sim.oracle(f"{self.prefix}{e.uid}.{k}", ft, self.step_no)
                for k, ft in adt_fields(e.ty)}}, e.ty)
        if isinstance(e, A.Tester):
            v = self.eval(e.arg)
            return v["%tag"] == next(i for i, (c, _) in enumerate(e.arg.ty.items) if c == e.ctor)
        if isinstance(e, A.AnyE):
            if e.uid not in self.memo:
                self.memo[e.uid] = self.sim.oracle(self.prefix + e.uid, e.ty, self.step_no)
                if e.functional:
                    self.sim.chosen(e, [self.eval(a) for a in getattr(e, "args", [])],
                                    self.memo[e.uid], self.step_no)
            return self.memo[e.uid]
        if isinstance(e, (A.Caret, SymDef)):
            return symarrays_sim.evaluate(self, e)
        from kinduct.frontends.lucent.sim import collections_sim  # sets, maps, quantifiers
        return collections_sim.evaluate(self, e)


def refinement_holds(inst: Instance, value: Any, ref: Any) -> bool:
    """Whether ``value`` has the refinement type ``ref`` (components included), evaluated in
    ``inst`` (a predicate may read the node's constants and streams)."""
    for key, sub in ref.parts.items():
        if isinstance(key, tuple):  # a set's elements, a map's keys or values
            from kinduct.frontends.lucent.sim.collections_sim import part_holds
            if not part_holds(inst, value, key, sub):
                return False
            continue
        if isinstance(key, Variant):  # owed by a value of that constructor only
            items = [value[key.key]] if value["%tag"] == key.index else []
        else:
            items = value if key == "*" else [value[key]]
        if not all(refinement_holds(inst, item, sub) for item in items):
            return False
    if ref.lo is not None and value < ref.lo:
        return False
    if ref.hi is not None and value > ref.hi:
        return False
    for var, pred in ref.preds:
        saved = inst.cur.get(var, _PENDING)
        inst.cur[var] = value
        try:
            ok = bool(inst.eval(pred))
        finally:
            if saved is _PENDING:
                del inst.cur[var]
            else:
                inst.cur[var] = saved
        if not ok:
            return False
    return True


def _contract_exprs(node: Node) -> list[A.Expr]:
    """The expressions of a node's contract: ghost definitions, assumptions, guarantees, modes."""
    out = [e for names, e in node.eqs if all(n in node.ghosts for n in names)]
    out += [p.expr for p in node.assumes + node.guarantees]
    for m in node.modes:
        out += m.requires + [e for _, e, _ in m.ensures]
    return out


def _call_uids(exprs: list[A.Expr]) -> set[str]:
    out: set[str] = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if isinstance(e, A.Call):
            out.add(e.uid)
        for v in vars(e).values():
            if isinstance(v, A.Expr):
                stack.append(v)
            elif isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, A.Expr))
                stack.extend(y for x in v if isinstance(x, tuple) for y in x if isinstance(y, A.Expr))
    return out


class _Pending:
    pass


_PENDING = _Pending()


def _flatten(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list) else [v]


def _flatten_typed(v: Any, t: T) -> list[Any]:
    """Node arguments: tuple values are spread over the parameters."""
    if t.kind == "tuple":
        return [x for item, it in zip(v, t.items, strict=True) for x in _flatten_typed(item, it)]
    return [v]


class Simulator:
    def __init__(self, checked: Checked, main: str, oracle: Oracle | None = None,
                 abstract: set[str] | frozenset[str] = frozenset(),
                 abstract_main: bool = False) -> None:
        """``abstract``: nodes whose calls are represented by their contract (compositional
        analysis): their outputs come from the oracle; ``abstract_main``: so is the main node
        when it is in ``abstract`` (a contract monitor reads its outputs from a trace)."""
        self.checked = checked
        self.abstract = abstract
        self.abstract_main = abstract_main
        self.main = checked.nodes[main]
        self.oracle = oracle or default_oracle
        self.consts: dict[str, Any] = {}
        #: The unspecified values read so far, with the step: a division by zero, per operator
        #: and dividend (a function at every distance in time: the SMT-LIB result of ``x div 0``
        #: depends on ``x`` only); an out-of-range read, per step, array stream and index (a
        #: function within the step), as the translation encodes them.
        self.unspecified: dict[tuple[str, str], tuple[Any, int]] = {}
        #: Where the oracle gave equal arguments two results (then no Lucent execution does).
        self.unspecified_clash: str | None = None
        #: The values of ``choose`` read so far, per (occurrence, arguments), and where the
        #: oracle gave equal arguments two values.
        self.choices: dict[tuple[str, str], tuple[str, int]] = {}
        self.choice_clash: str | None = None
        self.root = Instance(self, self.main, "")
        self.steps = 0

    def divided_by_zero(self, op: str, dividend: Any, result: Any, step: int) -> Any:
        """Record ``dividend op 0 = result`` (at ``step``); ``result``."""
        return self._unspecified(op, repr(dividend), result, step,
                                 f"divides {dividend} by zero ('{op}')")

    def read_outside(self, stream: str, index: int, result: Any, step: int) -> None:
        """Record that the array ``stream`` read at ``index``, out of range, at ``step`` is
        ``result`` (a function of the stream and the index within the step only)."""
        self._unspecified(f"[]@{step}", repr((stream, index)), result, step,
                          f"reads {stream} at {index}, out of range,")

    def _unspecified(self, op: str, key: str, result: Any, step: int, what: str) -> Any:
        seen = self.unspecified.setdefault((op, key), (result, step))
        if seen[0] != result and self.unspecified_clash is None:
            self.unspecified_clash = (f"the counterexample {what} with two results, {seen[0]} "
                                      f"(step {seen[1]}) and {result} (step {step}); it is a "
                                      "function of its arguments")
        return result

    def chosen(self, e: A.AnyE, args: list[Any], value: Any, step: int) -> None:
        """Record that ``choose`` ``e`` gave ``value`` for ``args`` at ``step``: it is a
        function, so another value for equal arguments is a clash (``choice_clash``)."""
        from kinduct.frontends.lucent.sim.canonical import text, texts
        got = text(value, e.ty)
        given = texts(args, [a.ty for a in getattr(e, "args", [])])
        seen = self.choices.setdefault((e.uid, given), (got, step))
        if seen[0] != got and self.choice_clash is None:
            self.choice_clash = (f"the counterexample reads 'choose' at {e.pos.line}:{e.pos.col} "
                                 f"on {given} as {seen[0]} (step {seen[1]}) and as {got} "
                                 f"(step {step}); the choice is not modelled as a function "
                                 "across more than one step")

    def const_value(self, name: str, t: T) -> Any:
        if name not in self.consts:
            self.consts[name] = self.oracle(naming.constant(name), t, 0)
        return self.consts[name]

    def step(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        with naming.numbering(self.checked.names):
            return self._step(inputs)

    def _step(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        node = self.main
        vals = []
        for n in node.inputs:
            if n in node.const_inputs and self.steps > 0:
                vals.append(self.root.history[0][n])
            else:
                vals.append(inputs[n])
        self.root.step(self.steps, vals)
        self.steps += 1
        return dict(self.root.cur)

    def run(self, inputs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [self.step(i) for i in inputs]

    def instance(self, prefix: str) -> Instance | None:
        """The instance whose streams are named ``prefix + name``."""
        todo = [self.root]
        while todo:
            inst = todo.pop()
            if inst.prefix == prefix:
                return inst
            todo.extend(inst.children.values())
        return None

    def instances(self) -> list[Instance]:
        out, todo = [], [self.root]
        while todo:
            inst = todo.pop()
            out.append(inst)
            todo.extend(inst.children.values())
        return out

    def holds(self, expr: A.Expr, inst: Instance | None = None) -> Any:
        """Evaluate ``expr`` at the current step in ``inst`` (default: the main node)."""
        return (inst or self.root).eval(expr)


def leaves(name: str, t: T, value: Any) -> dict[str, Any]:
    """A structured value split into the scalar leaves the translation names (in
    :func:`~kinduct.frontends.lucent.core.types.assemble`'s order)."""
    return dict(zip((name + suffix for suffix, _ in scalar_paths(t)), value_leaves(value),
                    strict=True))


