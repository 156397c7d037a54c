"""What an equation reads at the current step, at the first step and after it, as one walk finds
both (``walk.current_vars_phases``): the sets written out by hand for each construct, and the
same as the walk of one phase at a time on every equation of a model with calls."""

from __future__ import annotations

from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.core.walk import current_vars, current_vars_phases
from kinduct.frontends.lucent.syntax.parser import parse_text

MODEL = """
node delay(x: int) returns (y: int);
let y = 0 -> pre x; tel

node passthru(x: int) returns (y: int);
let y = x; tel

node top(a, b, c: int; go: bool) returns (p, q, r, s, t: int);
let
  p = a -> b + c;
  q = (a -> pre b) + c;
  r = if go then delay(a) else passthru(b);
  s = pre (a + b) -> c;
  t = (a -> b) -> (c -> a);
tel
"""

#: Per stream: (read at the first step, read after it), the calls read with every argument.
EXPECTED = {
    "p": ({"a"}, {"b", "c"}),
    "q": ({"a", "c"}, {"c"}),
    "r": ({"go", "a", "b"}, {"go", "a", "b"}),
    "s": (set(), {"c"}),
    "t": ({"a"}, {"a"}),
}


def _equations():
    checked = check_program(parse_text(MODEL, "reads.lus"))
    return {names[0]: e for names, e in checked.nodes["top"].eqs if len(names) == 1}


def test_each_phase_reads_what_the_equation_reads_then() -> None:
    eqs = _equations()
    for name, (first, later) in EXPECTED.items():
        assert current_vars_phases(eqs[name]) == (first, later), name


def test_a_call_is_read_through_what_its_outputs_read_now() -> None:
    eqs = _equations()
    # delay's output reads no input at the current step; passthru's reads its only input
    instant = {"delay": (1, set()), "passthru": (1, {0})}
    assert current_vars_phases(eqs["r"], instant) == ({"go", "b"}, {"go", "b"})


def test_both_phases_at_once_are_each_phase_alone() -> None:
    eqs = _equations()
    instant = {"delay": (1, set()), "passthru": (1, {0})}
    for e in eqs.values():
        for reads in (None, instant):
            assert current_vars_phases(e, reads) == (current_vars(e, 0, reads),
                                                     current_vars(e, 1, reads))


#: Per stream: read at some step (``current_vars`` without a phase: both operands of ``->``).
SOME_STEP = {"p": {"a", "b", "c"}, "q": {"a", "c"}, "r": {"go", "a", "b"}, "s": {"c"},
             "t": {"a", "b", "c"}}


def test_three_phases_at_once_are_each_phase_alone() -> None:
    """``current_vars_all``: the first step, the steps after, and some step, in one walk; by
    hand here, and against one phase at a time on every equation of a generated model with
    calls, contracts, records and arrays (with and without the callees' reads)."""
    from kinduct.frontends.lucent.core.walk import current_vars_all

    eqs = _equations()
    for name, (first, later) in EXPECTED.items():
        assert current_vars_all(eqs[name]) == (first, later, SOME_STEP[name]), name
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from benchmarks.scale_models import gen_nodes

    checked = check_program(parse_text(gen_nodes(40), "gen.lus"))
    count = 0
    for node in checked.nodes.values():
        for reads in (None, {n: (len(m.inputs), set(range(len(m.inputs)))) for n, m in
                             checked.nodes.items()}, {"sat": (1, set())}):
            for _, e in node.eqs:
                assert current_vars_all(e, reads) == (current_vars(e, 0, reads),
                                                      current_vars(e, 1, reads),
                                                      current_vars(e, None, reads))
                count += 1
    assert count > 300
