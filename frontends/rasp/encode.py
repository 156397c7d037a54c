"""Bounded verification of RASP programs: an SMT encoding per input length, for the kernel's
``bmc`` engine (``kernel/bounded.py``), with exhaustive enumeration as a fallback.

For a fixed length n every position is known, so the encoding is per position:

- the input token at position j is an integer ``tok_j`` (an index into the alphabet);
- an s-op value at a position is a *guarded value set*: a list of (condition, concrete value)
  pairs whose conditions are mutually exclusive and cover every input.  Elementwise operations
  combine the sets pairwise and call the evaluator's own operations (``ops.apply``) on the
  concrete values, so they mean exactly what the evaluator means, for every operator;
- a selector is an n x n matrix of Boolean formulas;
- ``aggregate`` at query position i: the width ``w = sum_j ite(S[i][j], 1, 0)`` and the sum
  ``s = sum_j ite(S[i][j], v_j, 0)`` are linear terms; the mean ``p / q`` is the value under
  ``w = q and s = p`` for every (q, p) a dynamic programme over the operands' possible values
  finds reachable.  The divisor is therefore always a constant: the encoding stays in linear
  arithmetic, and averages are exact.  With no selected position the value is the default;
  a single selected non-number passes through; averaging several non-numbers is a runtime
  error, encoded as such;
- conditions over constants fold away, so everything computed from ``indices`` and ``length``
  alone (e.g. the ``flip`` selector of reverse) costs nothing.

Runtime errors (averaging strings, division by zero, comparing a string with a number) are
part of the question: an input on which the program fails is a counterexample.

Every construct of the language is encodable this way; what can fail is size — a value set or
an aggregate's (count, sum) table larger than ``LIMIT``.  Then, when the alphabet is small
enough for length n (at most ``ENUM_LIMIT`` words), the words are enumerated with the evaluator
instead; otherwise the engine refuses the problem with a clear message.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.evaluate import EvalError, Evaluator, convert_token
from kinduct.frontends.rasp.nodes import Node, walk
from kinduct.kernel.bounded import BoundedProblem
from kinduct.kernel.errors import EngineRefusal
from kinduct.kernel.system import Property
from kinduct.kernel.verdict import Trace

LIMIT = 4000
ENUM_LIMIT = 200_000

Guarded = list[tuple[FNode, Any]]


class Unencodable(Exception):
    """The encoding would be too large for this length."""


class Encoder:
    """Encodes the nodes reachable from some targets for one input length."""

    def __init__(self, env: Environment, tokens: list[Guarded], token_errors: list[FNode]) -> None:
        self.mgr = env.formula_manager
        self.n = len(tokens)
        self.token_sets = tokens
        self.errors: list[FNode] = list(token_errors)
        self.memo: dict[int, Any] = {}
        self.T = self.mgr.TRUE()
        self.F = self.mgr.FALSE()

    # -------------------------------------------------------------- folding Boolean helpers
    def and_(self, *xs: FNode) -> FNode:
        out = []
        for x in xs:
            if x.is_false():
                return self.F
            if not x.is_true():
                out.append(x)
        if not out:
            return self.T
        return out[0] if len(out) == 1 else self.mgr.And(out)

    def or_(self, *xs: FNode) -> FNode:
        out = []
        for x in xs:
            if x.is_true():
                return self.T
            if not x.is_false():
                out.append(x)
        if not out:
            return self.F
        return out[0] if len(out) == 1 else self.mgr.Or(out)

    def not_(self, x: FNode) -> FNode:
        if x.is_true():
            return self.F
        if x.is_false():
            return self.T
        return self.mgr.Not(x)

    def merge(self, pairs: list[tuple[FNode, Any]]) -> Guarded:
        by_key: dict[tuple, tuple[Any, list[FNode]]] = {}
        for cond, value in pairs:
            if cond.is_false():
                continue
            k = ops.key(value)
            if k in by_key:
                by_key[k][1].append(cond)
            else:
                by_key[k] = (value, [cond])
        if len(by_key) > LIMIT:
            raise Unencodable(f"more than {LIMIT} possible values at one position")
        return [(self.or_(*conds), value) for value, conds in by_key.values()]

    def linear(self, const: Fraction, terms: list[FNode]) -> FNode | Fraction:
        """A real sum, or a plain Fraction when nothing in it is symbolic."""
        if not terms:
            return const
        parts = terms + ([self.mgr.Real(const)] if const else [])
        return parts[0] if len(parts) == 1 else self.mgr.Plus(parts)

    def equals(self, term: FNode | Fraction, value: Fraction) -> FNode:
        if isinstance(term, Fraction):
            return self.T if term == value else self.F
        return self.mgr.Equals(term, self.mgr.Real(value))

    # ---------------------------------------------------------------------------- encoding
    def encode(self, roots: Sequence[Node]) -> None:
        for node in walk(list(roots)):
            if node.uid not in self.memo:
                self.memo[node.uid] = self._encode(node)

    def values(self, node: Node) -> list[Guarded]:
        return self.memo[node.uid]

    def _encode(self, node: Node) -> Any:
        n, k = self.n, node.kind
        if k == "tokens":
            out = []
            for j in range(n):
                pairs = []
                for cond, tok in self.token_sets[j]:
                    try:
                        pairs.append((cond, convert_token(tok, node.value)))
                    except ops.RaspRuntimeError:
                        self.errors.append(cond)
                out.append(self.merge(pairs))
            return out
        if k == "indices":
            return [[(self.T, i)] for i in range(n)]
        if k == "const":
            return [[(self.T, node.value)] for _ in range(n)]
        args = [self.memo[a.uid] for a in node.args]
        if k == "map":
            return [self._map(node.op, [a[i] for a in args]) for i in range(n)]
        if k == "select":
            keys, queries = args
            cmp = ops.COMPARE[node.op]
            return [[self._compare(cmp, keys[j], queries[i]) for j in range(n)] for i in range(n)]
        if k == "sel_and":
            return [[self.and_(x, y) for x, y in zip(r1, r2, strict=True)]
                    for r1, r2 in zip(*args, strict=True)]
        if k == "sel_or":
            return [[self.or_(x, y) for x, y in zip(r1, r2, strict=True)]
                    for r1, r2 in zip(*args, strict=True)]
        if k == "sel_not":
            return [[self.not_(x) for x in row] for row in args[0]]
        if k == "select_best":
            return [self._best(*args, i) for i in range(n)]
        if k == "aggregate":
            matrix, vals = args
            return [self._aggregate(matrix[i], vals, node.value) for i in range(n)]
        raise AssertionError(k)  # pragma: no cover

    def _map(self, op: str, operands: list[Guarded]) -> Guarded:
        size = 1
        for g in operands:
            size *= len(g)
        if size > LIMIT * 4:
            raise Unencodable(f"'{op}' combines {size} value pairs at one position")
        pairs = []
        for combo in itertools.product(*operands):
            cond = self.and_(*(c for c, _ in combo))
            if cond.is_false():
                continue
            try:
                pairs.append((cond, ops.apply(op, *(v for _, v in combo))))
            except ops.RaspRuntimeError:
                self.errors.append(cond)
        return self.merge(pairs)

    def _best(self, matrix: list[list[FNode]], keys: list[Guarded], queries: list[Guarded],
              i: int) -> list[FNode]:
        """Row ``i`` of ``select_best``: key k stays when selected and no selected key scores
        more (the evaluator's ``best_row``); a score that is no product of numbers is a runtime
        error, as in the evaluator."""
        scores = [self._map("*", [keys[j], queries[i]]) for j in range(self.n)]
        at_least = ops.COMPARE[">="]
        row = []
        for k in range(self.n):
            beaten = [self.and_(matrix[i][j], self.not_(self._compare(at_least, scores[k], scores[j])))
                      for j in range(self.n) if j != k]
            row.append(self.and_(matrix[i][k], self.not_(self.or_(*beaten))))
        return row

    def _compare(self, cmp: Callable[[Any, Any], bool], key: Guarded, query: Guarded) -> FNode:
        hits = []
        for ck, vk in key:
            for cq, vq in query:
                cond = self.and_(ck, cq)
                if cond.is_false():
                    continue
                try:
                    if cmp(vk, vq):
                        hits.append(cond)
                except ops.RaspRuntimeError:
                    self.errors.append(cond)
        return self.or_(*hits)

    def _aggregate(self, row: list[FNode], vals: list[Guarded], default: Any) -> Guarded:
        mgr = self.mgr
        live = [j for j in range(self.n) if not row[j].is_false()]
        one, zero = mgr.Real(1), mgr.Real(0)
        # width and sum of the numeric values, as linear terms
        w_const, w_terms = Fraction(0), []
        s_const, s_terms = Fraction(0), []
        nonnum_sel = []
        for j in live:
            numeric = [(c, Fraction(v)) for c, v in vals[j] if ops.is_number(v)]
            nonnum = self.or_(*(c for c, v in vals[j] if not ops.is_number(v)))
            nonnum_sel.append(self.and_(row[j], nonnum))
            if row[j].is_true():
                w_const += 1
            else:
                w_terms.append(mgr.Ite(row[j], one, zero))
            if len(numeric) == 1 and numeric[0][0].is_true():
                v_term: FNode | Fraction = numeric[0][1]
            else:
                v_term = self.linear(Fraction(0), [mgr.Ite(c, mgr.Real(v), zero) for c, v in numeric if v])
            if isinstance(v_term, Fraction):
                if v_term == 0:
                    continue
                if row[j].is_true():
                    s_const += v_term
                else:
                    s_terms.append(mgr.Ite(row[j], mgr.Real(v_term), zero))
            else:
                s_terms.append(v_term if row[j].is_true() else mgr.Ite(row[j], v_term, zero))
        width = self.linear(w_const, w_terms)
        total = self.linear(s_const, s_terms)
        any_nonnum = self.or_(*nonnum_sel)

        pairs: list[tuple[FNode, Any]] = []
        none_selected = self.and_(*(self.not_(row[j]) for j in live))
        pairs.append((none_selected, default))
        # exactly one position selected, holding a non-number: passed through
        single = self.equals(width, Fraction(1))
        for j in live:
            alone = self.and_(row[j], single)
            if alone.is_false():
                continue
            for c, v in vals[j]:
                if not ops.is_number(v):
                    pairs.append((self.and_(alone, c), v))
        # one or more numbers: the mean p/q, for every reachable (count q, sum p)
        states: set[tuple[int, Fraction]] = {(0, Fraction(0))}
        for j in live:
            numeric = {Fraction(v) for _, v in vals[j] if ops.is_number(v)}
            nxt: set[tuple[int, Fraction]] = set()
            for q, p in states:
                if not row[j].is_true():
                    nxt.add((q, p))
                for v in numeric:
                    nxt.add((q + 1, p + v))
            states = nxt
            if len(states) > LIMIT:
                raise Unencodable(f"an aggregate has more than {LIMIT} (count, sum) combinations")
        no_nonnum = self.not_(any_nonnum)
        for q, p in states:
            if q == 0:
                continue
            cond = self.and_(self.equals(width, Fraction(q)), self.equals(total, p), no_nonnum)
            pairs.append((cond, ops.norm(p / q)))
        # several positions selected and one of them is not a number: a runtime error
        if not any_nonnum.is_false():
            two = (self.T if w_const >= 2 else self.F) if isinstance(width, Fraction) \
                else mgr.LE(mgr.Real(2), width)
            self.errors.append(self.and_(two, any_nonnum))
        return self.merge(pairs)


def run_targets(targets: Sequence[Node], tokens: Sequence[str]) -> tuple[list[list[Any]] | None, str | None]:
    """Evaluate the targets on one input: their values, or the runtime error's message."""
    ev = Evaluator(tokens)
    try:
        return [list(ev(t)) for t in targets], None
    except EvalError as exc:
        return None, exc.message


class RaspCheck(BoundedProblem):
    """All inputs over ``alphabet`` of length ``min_length..max_length`` (after an optional BOS
    token): ``equiv`` (two s-ops agree at every position) or ``assert`` (a Boolean s-op holds at
    every position, or at the last one)."""

    def __init__(self, env: Environment, alphabet: Sequence[str], targets: Sequence[tuple[str, Node]],
                 mode: str, at: str = "all", bos: str | None = None, min_length: int = 1,
                 max_length: int = 6, enumerate_limit: int = ENUM_LIMIT) -> None:
        self.env = env
        self.alphabet = list(alphabet)
        self.labels = [label for label, _ in targets]
        self.targets = [node for _, node in targets]
        self.mode = mode
        self.at = at
        self.bos = bos
        self.min_length = min_length
        self.max_length = max_length
        self.enumerate_limit = enumerate_limit
        self.methods: dict[int, str] = {}
        self._tables: dict[int, tuple] = {}

    # ------------------------------------------------------------------ the property itself
    def checked_positions(self, length: int) -> list[int]:
        first = 1 if self.bos is not None else 0
        if self.at == "last":
            return [length - 1] if length > first else []
        return list(range(first, length))

    def violated(self, values: list[list[Any]]) -> bool:
        positions = self.checked_positions(len(values[0]))
        if self.mode == "equiv":
            return any(ops.key(values[0][i]) != ops.key(values[1][i]) for i in positions)
        return any(not bool(values[0][i]) for i in positions)

    def word(self, letters: Sequence[str]) -> list[str]:
        return ([self.bos] if self.bos is not None else []) + list(letters)

    # ---------------------------------------------------------------------------- encoding
    def violation(self, n: int, prop: Property) -> FNode:
        mgr = self.env.formula_manager
        xs = [mgr.Symbol(f"tok_{j}", INT) for j in range(n)]
        err = mgr.Symbol("runtime_error", BOOL)
        length = n + (1 if self.bos is not None else 0)
        outs = [[mgr.Symbol(f"out{t}_{i}", INT) for i in range(length)] for t in range(len(self.targets))]
        domain = [mgr.And(mgr.LE(mgr.Int(0), x), mgr.LT(x, mgr.Int(len(self.alphabet)))) for x in xs]
        try:
            formula, tables = self._encode(n, xs, err, outs)
            self.methods[n] = "smt"
        except Unencodable as exc:
            if len(self.alphabet) ** n > self.enumerate_limit:
                raise EngineRefusal(f"RASP encoding too large at length {n} ({exc}) and "
                                    f"{len(self.alphabet)}^{n} words are too many to enumerate") from None
            formula, tables = self._enumerate(n, xs, err, outs)
            self.methods[n] = "enumeration"
        self._tables[n] = (xs, err, outs, tables)
        return mgr.And(domain + [formula])

    def _token_sets(self, n: int, xs: list[FNode]) -> list[Guarded]:
        mgr = self.env.formula_manager
        sets: list[Guarded] = [] if self.bos is None else [[(mgr.TRUE(), self.bos)]]
        for x in xs:
            sets.append([(mgr.Equals(x, mgr.Int(a)), letter) for a, letter in enumerate(self.alphabet)])
        return sets

    def _encode(self, n: int, xs: list[FNode], err: FNode, outs: list[list[FNode]]):
        mgr = self.env.formula_manager
        enc = Encoder(self.env, self._token_sets(n, xs), [])
        enc.encode(self.targets)
        parts = []
        tables: list[list[list[Any]]] = []
        for t, node in enumerate(self.targets):
            rows = []
            for i, guarded in enumerate(enc.values(node)):
                rows.append([v for _, v in guarded])
                for idx, (cond, _) in enumerate(guarded):
                    parts.append(mgr.Implies(cond, mgr.Equals(outs[t][i], mgr.Int(idx))))
            tables.append(rows)
        bad = []
        for i in self.checked_positions(len(outs[0])):
            if self.mode == "equiv":
                g1, g2 = enc.values(self.targets[0])[i], enc.values(self.targets[1])[i]
                bad.extend(enc.and_(c1, c2) for c1, v1 in g1 for c2, v2 in g2
                           if ops.key(v1) != ops.key(v2))
            else:
                bad.extend(c for c, v in enc.values(self.targets[0])[i] if not bool(v))
        parts.append(mgr.Iff(err, enc.or_(*enc.errors)))
        parts.append(mgr.Or(enc.or_(*bad), err))
        return mgr.And(parts), tables

    def _enumerate(self, n: int, xs: list[FNode], err: FNode, outs: list[list[FNode]]):
        """The fallback: run the evaluator on every word of length n (in order)."""
        mgr = self.env.formula_manager
        for combo in itertools.product(range(len(self.alphabet)), repeat=n):
            tokens = self.word([self.alphabet[a] for a in combo])
            values, error = run_targets(self.targets, tokens)
            if error is None and not self.violated(values):
                continue
            parts = [mgr.Equals(x, mgr.Int(a)) for x, a in zip(xs, combo, strict=True)]
            parts.append(err if error is not None else mgr.Not(err))
            tables = []
            for t in range(len(self.targets)):
                rows = []
                for i in range(len(tokens)):
                    rows.append([values[t][i]] if values is not None else [None])
                    parts.append(mgr.Equals(outs[t][i], mgr.Int(0)))
                tables.append(rows)
            return mgr.And(parts), tables
        return mgr.FALSE(), []

    def decode(self, n: int, solver) -> Trace:
        xs, err, outs, tables = self._tables[n]
        symbols = list(xs) + [err] + [o for row in outs for o in row]
        model = solver.values(symbols)
        letters = [self.alphabet[int(model[x])] for x in xs]
        tokens = self.word(letters)
        failed = bool(model[err])
        steps = []
        for i, tok in enumerate(tokens):
            step: dict[str, Any] = {"token": tok}
            for t, label in enumerate(self.labels):
                table = tables[t][i]
                idx = int(model[outs[t][i]])
                if failed:  # the run fails somewhere: no value to show
                    step[label] = "error"
                else:
                    step[label] = _trace_value(table[idx] if 0 <= idx < len(table) else None)
            step["runtime_error"] = failed
            steps.append(step)
        return Trace.of(steps)

    # ---------------------------------------------------------------- replay and lifting
    def replay(self, trace: Trace, prop: Property) -> str | None:
        """Re-run the counterexample on the evaluator: same values, and really a violation."""
        tokens = [str(s["token"]) for s in trace.steps]
        values, error = run_targets(self.targets, tokens)
        claimed_error = bool(trace.steps and trace.steps[0].get("runtime_error"))
        if error is not None or claimed_error:
            if error is not None and claimed_error:
                return None
            return (f"the evaluator {'fails' if error else 'does not fail'} on {''.join(tokens)!r}"
                    f"{': ' + error if error else ''}")
        assert values is not None
        for t, label in enumerate(self.labels):
            for i, step in enumerate(trace.steps):
                if step.get(label) != _trace_value(values[t][i]):
                    return (f"{label} at position {i} is {ops.show(values[t][i])} on the evaluator "
                            f"but {step.get(label)!r} in the trace")
        if not self.violated(values):
            return f"the property holds on {''.join(tokens)!r}"
        return None

    def error_message(self, trace: Trace) -> str | None:
        if trace.steps and trace.steps[0].get("runtime_error"):
            return run_targets(self.targets, [str(s["token"]) for s in trace.steps])[1]
        return None

    def lift(self, trace: Trace, prop: Property | None) -> list[dict]:
        streams = [{"name": "input", "type": "enum", "class": "input",
                    "instantValues": [[i, s["token"]] for i, s in enumerate(trace.steps)]}]
        for label in self.labels:
            vals = [s.get(label) for s in trace.steps]
            streams.append({"name": label, "type": _stream_type(vals), "class": "output",
                            "instantValues": [[i, _json(v)] for i, v in enumerate(vals)]})
        return [{"blockType": "node", "name": "rasp", "streams": streams}]


def _trace_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, Fraction, str)):
        return v
    return str(v)


def _json(v: Any) -> Any:
    if isinstance(v, Fraction):
        return {"num": v.numerator, "den": v.denominator}
    return v


def _stream_type(vals: list[Any]) -> str:
    if vals and all(isinstance(v, bool) for v in vals):
        return "bool"
    if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return "int"
    if vals and all(ops.is_number(v) for v in vals):
        return "real"
    if vals and all(isinstance(v, str) for v in vals):
        return "enum"
    return "abstr"

