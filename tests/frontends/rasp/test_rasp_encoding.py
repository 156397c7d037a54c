"""The SMT encoding agrees with the evaluator (hypothesis): for a word, fixing the token
variables makes exactly one guard of every guarded value true, and its value is the
evaluator's; the runtime-error condition is true exactly when the evaluator fails."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pysmt.environment import Environment
from pysmt.typing import BOOL, INT

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.encode import Encoder
from kinduct.frontends.rasp.evaluate import EvalError, Evaluator
from kinduct.frontends.rasp.interp import load_program, load_text
from kinduct.frontends.rasp.nodes import Node
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES

RASP = EXAMPLES / "rasp"
ALPHABET = ["a", "b", "1", "("]


def agree(node: Node, word: list[str], alphabet: list[str] = ALPHABET) -> None:
    env = Environment()
    mgr = env.formula_manager
    xs = [mgr.Symbol(f"t{j}", INT) for j in range(len(word))]
    sets = [[(mgr.Equals(x, mgr.Int(a)), letter) for a, letter in enumerate(alphabet)] for x in xs]
    enc = Encoder(env, sets, [])
    enc.encode([node])
    fix = {x: mgr.Int(alphabet.index(c)) for x, c in zip(xs, word, strict=True)}
    simp = env.simplifier

    def truth(f) -> bool:
        g = simp.simplify(env.substituter.substitute(f, fix))
        assert g.is_constant(), g
        return g.is_true()

    failed = truth(enc.or_(*enc.errors))
    try:
        expected = Evaluator(word)(node)
    except EvalError:
        assert failed, f"the evaluator fails on {word} but the encoding has no error"
        return
    assert not failed, f"the encoding reports an error on {word}"
    if node.is_selector:
        matrix = enc.values(node)
        assert [[truth(c) for c in row] for row in matrix] == expected
        return
    for i, guarded in enumerate(enc.values(node)):
        hits = [v for c, v in guarded if truth(c)]
        assert len(hits) == 1, (i, hits)
        assert ops.key(hits[0]) == ops.key(expected[i]), (word, i, hits[0], expected[i])


WORDS = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=5)

EXAMPLE_SOPS = [
    ("reverse", "reverse"), ("hist", "hist"), ("hist2", "hist2"), ("sort", "sort_counts"),
    ("most_freq", "most_freq"), ("dyck1", "dyck1_ptf"), ("dyck3", "dyck3"),
    ("shuffle_dyck2", "shuffle_dyck2"),
]
PROGRAMS = {f: load_program(RASP / f"{f}.rasp") for f, _ in EXAMPLE_SOPS}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=WORDS, which=st.sampled_from(EXAMPLE_SOPS))
def test_examples_encode_like_they_evaluate(word: list[str], which: tuple[str, str]) -> None:
    file, sop = which
    agree(PROGRAMS[file].sop(sop), word)


# Random programs: s-op expressions over tokens, indices, constants, arithmetic, comparisons,
# conditionals, numeric and categorical aggregates and selector widths.
LEAVES = st.sampled_from(["indices", "tokens", "1", "2", '"a"', "length", "tokens_asis"])
CMP = st.sampled_from(["==", "<", "<=", "!=", ">"])


def _extend(sub):
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", sub, st.sampled_from(["+", "-", "*", "%"]), sub),
        st.builds(lambda a, op, b: f"({a} {op} {b})", sub, CMP, sub),
        st.builds(lambda c, a, b: f"({a} if {c} else {b})", sub, sub, sub),
        st.builds(lambda a: f"indicator({a})", sub),
        st.builds(lambda a, b: f"({a} and not {b})", sub, sub),
        st.builds(lambda k, q, op, v: f"aggregate(select({k}, {q}, {op}), {v})", sub, sub, CMP, sub),
        st.builds(lambda k, q, op, v: f"aggregate(select({k}, {q}, {op}), {v}, \"-\")", sub, sub, CMP, sub),
        st.builds(lambda k, q, op: f"selector_width(select({k}, {q}, {op}))", sub, sub, CMP),
        st.builds(lambda a: f"(1 / (indices + {a}))", sub),
    )


EXPRS = st.recursive(LEAVES, _extend, max_leaves=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=EXPRS, word=st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=4))
def test_random_programs_encode_like_they_evaluate(expr: str, word: list[str]) -> None:
    try:
        program = load_text(f"x = {expr};\ny = x == x;\n")
    except InputError:  # an error among constants, found before any input is seen
        assume(False)
        return
    agree(program.sop("y"), word)
    agree(program.sop("x"), word)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=EXPRS, q=EXPRS, op=CMP, other=st.sampled_from(["select_all", "select(indices, 1, ==)"]),
       comb=st.sampled_from(["and", "or"]), word=st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=4))
def test_random_selectors_encode_like_they_evaluate(k: str, q: str, op: str, other: str, comb: str,
                                                    word: list[str]) -> None:
    try:
        program = load_text(f"s = not (select({k}, {q}, {op}) {comb} {other});\n")
    except InputError:
        assume(False)
        return
    agree(program.sop("s", selector_ok=True), word)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e1=EXPRS, e2=EXPRS, n=st.integers(min_value=1, max_value=3))
def test_smt_answers_like_enumeration(e1: str, e2: str, n: int) -> None:
    """The whole length-n question, answered by SMT and by enumerating every word, agrees; an
    SMT counterexample decodes to a trace that replays on the evaluator."""
    from kinduct.frontends.rasp.encode import RaspCheck
    from kinduct.kernel import registry

    try:
        program = load_text(f"x = {e1};\ny = {e2};\nz = x == y;\n")
    except InputError:
        assume(False)
        return
    targets = [("x", program.sop("x")), ("y", program.sop("y"))]
    alphabet = ["a", "1"]
    for mode, tg in (("equiv", targets), ("assert", [("z", program.sop("z"))])):
        smt = RaspCheck(Environment(), alphabet, tg, mode)
        solver = registry.backend("z3").solver(smt.env)
        solver.add(smt.violation(n, None))
        found = solver.check()
        by_enum = RaspCheck(Environment(), alphabet, tg, mode)
        assert by_enum._enumerate(n, *_symbols(by_enum, n))[0].is_false() != found, (mode, e1, e2)
        if found:
            trace = smt.decode(n, solver)
            assert smt.replay(trace, None) is None


def _symbols(problem, n: int):
    mgr = problem.env.formula_manager
    xs = [mgr.Symbol(f"tok_{j}", INT) for j in range(n)]
    err = mgr.Symbol("runtime_error", BOOL)
    outs = [[mgr.Symbol(f"out{t}_{i}", INT) for i in range(n)] for t in range(len(problem.targets))]
    return xs, err, outs
