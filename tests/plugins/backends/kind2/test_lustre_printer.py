"""The Lustre printer: the printed node means what the system means.

A small evaluator for the printed subset of Lustre (fully parenthesised expressions, ``pre`` of
variables, one top-level ``->``) is checked against PySMT's evaluation of init, trans,
assumptions and properties on random states (hypothesis).  When the Lucent frontend is
registered, printed models are read back by it and must get the same verdicts.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysmt.typing import BVType

from kinduct.frontends.vmt.reader import parse_vmt, read_vmt
from kinduct.kernel import registry
from kinduct.kernel.backend import constant
from kinduct.kernel.errors import UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer
from kinduct.plugins.backends.kind2.lustre import print_lustre
from tests.conftest import BENCH, EXAMPLES

MODELS = [EXAMPLES / "vmt" / n for n in ("counter.vmt", "counter_bug.vmt", "twin_counters.vmt")] + [
    BENCH / "vmt" / "lustre" / n for n in ("_6counter2.vmt", "stalmark.vmt", "DRAGON_1.vmt",
                                          "traffic.vmt")]
MODELS = [m for m in MODELS if m.exists()]

# -- a reference evaluator for the printed subset ---------------------------------------------

_TOKEN = re.compile(r"\s*(->|=>|<=|>=|[()=<>+\-*/]|[A-Za-z_][A-Za-z0-9_]*|\d+\.\d+|\d+)")
_BINARY = {
    "and": lambda a, b: a and b, "or": lambda a, b: a or b, "=>": lambda a, b: (not a) or b,
    "=": lambda a, b: a == b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: Fraction(a) / Fraction(b),
}


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m, f"cannot read {text[pos:pos + 20]!r}"
        out.append(m.group(1))
        pos = m.end()
    return out


class _Expr:
    """Parses one expression into a function of (current values, previous values)."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.fn = self.parse()
        assert self.i == len(self.toks), text

    def next(self) -> str:
        self.i += 1
        return self.toks[self.i - 1]

    def expect(self, tok: str) -> None:
        assert self.next() == tok

    def parse(self):
        tok = self.next()
        if tok == "(":
            head = self.toks[self.i]
            if head in ("pre", "not", "if", "-"):
                self.i += 1
                if head == "pre":
                    name = self.next()
                    fn = lambda cur, pre, n=name: pre[n]  # noqa: E731
                elif head == "not":
                    e = self.parse()
                    fn = lambda cur, pre, e=e: not e(cur, pre)  # noqa: E731
                elif head == "-":
                    e = self.parse()
                    fn = lambda cur, pre, e=e: -e(cur, pre)  # noqa: E731
                else:
                    c = self.parse()
                    self.expect("then")
                    a = self.parse()
                    self.expect("else")
                    b = self.parse()
                    fn = lambda cur, pre, c=c, a=a, b=b: (  # noqa: E731
                        a(cur, pre) if c(cur, pre) else b(cur, pre))
                self.expect(")")
                return fn
            first = self.parse()
            rest = []
            while self.toks[self.i] != ")":
                rest.append((_BINARY[self.next()], self.parse()))
            self.expect(")")

            def chain(cur, pre, first=first, rest=rest):
                value = first(cur, pre)
                for op, e in rest:
                    value = op(value, e(cur, pre))
                return value
            return chain
        if tok == "real":
            self.expect("(")
            e = self.parse()
            self.expect(")")
            return lambda cur, pre: Fraction(e(cur, pre))
        if tok in ("true", "false"):
            return lambda cur, pre, v=(tok == "true"): v
        if re.fullmatch(r"\d+", tok):
            return lambda cur, pre, v=int(tok): v
        if re.fullmatch(r"\d+\.\d+", tok):
            return lambda cur, pre, v=Fraction(tok): v
        return lambda cur, pre, n=tok: cur[n]


def _arrow(text: str):
    """``a -> b`` at top level, or a plain expression."""
    depth = 0
    for m in re.finditer(r"[()]|->", text):
        if m.group() == "(":
            depth += 1
        elif m.group() == ")":
            depth -= 1
        elif depth == 0:
            return _Expr(text[:m.start()]).fn, _Expr(text[m.end():]).fn
    e = _Expr(text).fn
    return e, e


def evaluate(program_text: str, inputs: list[dict]) -> list[dict]:
    """Values of every stream (and ``assert#i``) at each step for the given node inputs."""
    equations = []
    for line in program_text.splitlines():
        line = line.strip()
        if m := re.fullmatch(r"assert (.*);", line):
            equations.append((f"assert#{len(equations)}", _arrow(m.group(1))))
        elif m := re.fullmatch(r"([A-Za-z_]\w*) = (.*);", line):
            equations.append((m.group(1), _arrow(m.group(2))))
    steps: list[dict] = []
    for k, values in enumerate(inputs):
        cur = dict(values)
        pre = steps[k - 1] if k else {}
        for name, (first, later) in equations:
            cur[name] = (first if k == 0 else later)(cur, pre)
        steps.append(cur)
    return steps


def _value_strategy(var):
    t = var.symbol_type()
    if t.is_bool_type():
        return st.booleans()
    if t.is_int_type():
        return st.integers(-3, 12)
    return st.fractions(-5, 5, max_denominator=4)


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_printed_node_agrees_with_the_system(model: Path):
    system = read_vmt(model)
    program = print_lustre(system)
    back = {lname: name for lname, name in program.variables.items()}
    variables = system.state_vars + system.input_vars
    step = st.fixed_dictionaries({v.symbol_name(): _value_strategy(v) for v in variables})

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(step, min_size=2, max_size=2))
    def check(steps):
        lustre_inputs = [{lname: s[name] for lname, name in back.items()} for s in steps]
        streams = evaluate(program.text, lustre_inputs)
        mgr = system.env.formula_manager
        cur = [{v: constant(mgr, v, s[v.symbol_name()]) for v in variables} for s in steps]
        simp = system.env.simplifier
        subst = system.env.substituter

        def holds(formula, mapping) -> bool:
            return simp.simplify(subst.substitute(formula, mapping)).constant_value()

        asserts = [n for n in streams[0] if n.startswith("assert#")]
        init_ok = holds(system.init, cur[0]) and all(holds(a, cur[0]) for a in system.assumptions)
        trans_map = dict(cur[0])
        trans_map.update({nxt: cur[1][v] for v, nxt in zip(system.state_vars, system.next_vars,
                                                            strict=True)})
        trans_ok = holds(system.trans, trans_map) and all(holds(a, cur[1]) for a in system.assumptions)
        assert all(streams[0][a] for a in asserts) == init_ok
        assert all(streams[1][a] for a in asserts) == trans_ok
        for oname, pname in program.properties.items():
            prop = system.property(pname)
            for k in (0, 1):
                assert streams[k][oname] == holds(prop.obligation(system.env), cur[k])

    check()


def test_names_are_lustre_identifiers_and_distinct():
    b = SystemBuilder("my-system")
    mgr = b.mgr
    from pysmt.typing import BOOL, INT

    x, xn = b.state("node", INT)          # a keyword
    y, yn = b.state("a.b", INT)           # a dot
    z, zn = b.state("a_b", INT)           # collides with the sanitised a.b
    go = b.input("1go", BOOL)             # starts with a digit
    b.add_init(mgr.And(mgr.Equals(x, mgr.Int(-1)), mgr.Equals(y, z)))
    b.add_trans(mgr.And(mgr.Equals(xn, mgr.Plus(x, mgr.Int(1))), mgr.Equals(yn, y),
                        mgr.Equals(zn, mgr.Ite(go, z, y))))
    b.add_property(Property("x >= -1", mgr.LE(mgr.Int(-1), x)))
    program = print_lustre(b.build())
    names = list(program.variables) + list(program.properties) + [program.node]
    assert len(set(names)) == len(names)
    for n in names:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n), n
        assert n not in ("node", "a.b")
    assert sorted(program.variables.values()) == ["1go", "a.b", "a_b", "node"]
    assert list(program.properties.values()) == ["x >= -1"]
    assert "(- 1)" in program.text


def test_bit_vectors_are_unsupported():
    b = SystemBuilder("bv")
    v, vn = b.state("v", BVType(8))
    b.add_init(b.mgr.Equals(v, b.mgr.BV(0, 8)))
    b.add_trans(b.mgr.Equals(vn, v))
    b.add_property(Property("P", b.mgr.TRUE()))
    with pytest.raises(UnsupportedError):
        print_lustre(b.build())


def test_reachability_target_is_printed_as_its_obligation():
    system = parse_vmt((EXAMPLES / "vmt" / "counter_bug.vmt").read_text())
    prop = system.properties[0]
    reach = Property("hit7", system.env.formula_manager.Equals(
        next(iter(system.state_vars)), system.env.formula_manager.Int(7)),
        kind=prop.kind.REACHABLE)
    program = print_lustre(system.with_properties([reach]))
    assert "hit7 = (not (x = 7));" in program.text


# -- round trip through the Lucent frontend ----------------------------------------------------

needs_lucent = pytest.mark.skipif("lucent" not in registry.frontends(),
                                  reason="the Lucent frontend is not registered")

_DUAL = {Answer.REACHABLE: Answer.FALSIFIABLE, Answer.UNREACHABLE: Answer.VALID}


def _answers(system: TransitionSystem, invariant_view: bool = False) -> dict[str, Answer]:
    verdicts = run(system, RunOptions(engines=("portfolio",), timeout=60))
    out = {v.property: v.answer for v in verdicts}
    if invariant_view:  # reachability targets are printed as invariants (their obligations)
        out = {k: _DUAL.get(a, a) for k, a in out.items()}
    return out


def _read_back(system: TransitionSystem, tmp_path: Path) -> tuple[TransitionSystem, dict[str, str]]:
    program = print_lustre(system)
    path = tmp_path / f"{program.node}.lus"
    path.write_text(program.text)
    return registry.frontend("lucent").load(path, LoadOptions()), program.properties


@needs_lucent
@pytest.mark.parametrize("model", MODELS[:5], ids=lambda p: p.name)
def test_round_trip_vmt_through_lucent(model: Path, tmp_path):
    system = read_vmt(model)
    lustre, names = _read_back(system, tmp_path)
    original = _answers(system)
    again = {names.get(k, k): a for k, a in _answers(lustre).items()}
    assert again == original
    assert all(a.definitive for a in original.values())


@needs_lucent
@pytest.mark.skipif("crasp" not in registry.frontends(), reason="no C-RASP frontend")
@pytest.mark.parametrize("program", ["dyck1.crasp", "tomita1.crasp", "anbncn.crasp"])
def test_round_trip_crasp_acceptor_through_lucent(program: str, tmp_path):
    path = EXAMPLES / "crasp" / program
    if not path.exists():
        pytest.skip(f"{path} is not there")
    system = registry.frontend("crasp").load(path, LoadOptions())
    lustre, names = _read_back(system, tmp_path)
    original = _answers(system, invariant_view=True)
    again = {names.get(k, k): a for k, a in _answers(lustre).items()}
    assert again == original
    assert all(a.definitive for a in original.values())


@needs_lucent
@pytest.mark.skipif("crasp" not in registry.frontends(), reason="no C-RASP frontend")
@pytest.mark.parametrize("pair", ["equiv/tomita1", "inequiv/astarbstar-tomita7"])
def test_round_trip_crasp_language_query_through_lucent(pair: str, tmp_path):
    """The product system of an equivalence query between two C-RASP acceptors."""
    queries = pytest.importorskip("kinduct.frontends.crasp.queries")
    base = EXAMPLES / "crasp" / "pairs" / pair
    paths = [Path(f"{base}.a.crasp"), Path(f"{base}.b.crasp")]
    if not all(p.exists() for p in paths):
        pytest.skip(f"{base}.[ab].crasp are not there")
    system = queries.query_system("equiv", queries.acceptors(paths))
    lustre, names = _read_back(system, tmp_path)
    original = _answers(system, invariant_view=True)
    again = {names.get(k, k): a for k, a in _answers(lustre).items()}
    assert again == original
    expected = Answer.VALID if pair.startswith("equiv/") else Answer.FALSIFIABLE
    assert set(original.values()) == {expected}
