"""Generalized traces, normalisation and matching: the document's figures, the two kinds of
mismatch at the first differing action, and property tests against reference programs written
here (not by the code under test)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kinduct.frontends.iospec.matching import cover
from kinduct.frontends.iospec.parser import load, parse
from kinduct.frontends.iospec.semantics import gtrace
from kinduct.frontends.iospec.traces import (
    In,
    OutStep,
    Print,
    Trace,
    normalise,
    parse_trace,
    show_gtrace,
)
from tests.conftest import EXAMPLES

SUM = load(EXAMPLES / "iospec" / "sum.iospec")


def accepted(spec, text: str) -> bool:
    trace = parse_trace(text)
    evaluation = gtrace(spec, trace.inputs())
    return evaluation.trace is not None and cover(trace, evaluation.trace) is None


def test_document_generalized_trace():
    # §3.4: the generalized trace of the summation task for the inputs [2, 5, 3]
    assert show_gtrace(gtrace(SUM, [2, 5, 3]).trace) == "?2 !{ε,2} ?5 !{ε,1} ?3 !{8} stop"


def test_document_traces_are_accepted():
    assert accepted(SUM, "?2 ?5 ?3 !8 stop")  # §3.3, Figure 2
    assert accepted(SUM, "?2 !2 ?5 !1 ?3 !8 stop")  # §3.4, with the optional outputs
    assert accepted(SUM, "?2 !2 ?5 ?3 !8 stop")  # the two further runs §3.4 names
    assert accepted(SUM, "?2 ?5 !1 ?3 !8 stop")
    assert not accepted(SUM, "?2 ?5 ?3 !9 stop")
    assert not accepted(SUM, "?2 ?5 ?3 !8 !8 stop")
    assert not accepted(SUM, "?2 ?5 ?3 ?4 !12 stop")  # inputs left over: no run


def test_optional_outputs_fuse_into_words():
    # §8.3: [▷x] [{ε,x_C}▷] [{ε,x_C}▷] [{x_C}▷] on input 1
    spec = load(EXAMPLES / "iospec" / "optional_echo.iospec")
    assert show_gtrace(gtrace(spec, [1]).trace) == "?1 !{1,1.1,1.1.1} stop"
    assert accepted(spec, "?1 !1 !1 stop")
    assert not accepted(spec, "?1 stop")
    # §8.5.2: [▷x]^τ_⊤ [{x_C, 2x_C}▷] [{1, ε}▷]
    spec = load(EXAMPLES / "iospec" / "stop_invalid.iospec")
    assert show_gtrace(gtrace(spec, [3]).trace) == "?3 !{3,6,3.1,6.1} stop"
    assert show_gtrace(gtrace(spec, [-3]).trace) == "?-3 stop"
    assert gtrace(spec, [-3, 1]).trace is None


def test_normalisation():
    trace = Trace((Print(1), Print(2), In(5), Print(3), In(4)))
    steps = normalise(trace).steps
    assert steps == (OutStep(frozenset({(1, 2)})), In(5), OutStep(frozenset({(3,)})), In(4))


def test_gtrace_errors():
    assert "only 2 value(s)" in gtrace(SUM, [2, 5]).error.message
    assert "not in pos" in gtrace(SUM, [0]).error.message
    assert "ends after 2 input(s)" in gtrace(SUM, [1, 4, 4]).error.message


def test_mismatch_kinds_at_the_first_differing_action():
    expected = gtrace(SUM, [2, 5, 3]).trace
    wrong_sum = cover(parse_trace("?2 ?5 ?3 !7 stop"), expected)
    assert wrong_sum.kind == "output" and (wrong_sum.program_step, wrong_sum.expected_step) == (3, 5)
    assert "Unexpected output 7" in wrong_sum.message and "{8}" in wrong_sum.message
    silent = cover(parse_trace("?2 ?5 ?3 stop"), expected)
    assert silent.kind == "alignment" and silent.got == "stop" and silent.expected == "!{8}"
    too_few = cover(parse_trace("?2 ?5 !5 stop"), expected)
    assert too_few.kind == "alignment" and too_few.expected == "?3" and too_few.got == "!5"
    early = cover(parse_trace("!0 ?2 ?5 ?3 !8 stop"), expected)
    assert early.kind == "alignment" and early.program_step == 0
    late = cover(parse_trace("?2 ?5 ?3 !8 !1 stop"), expected)
    assert late.kind == "output" and late.got == "!8.1"
    text = cover(parse_trace('?2 ?5 ?3 !"the sum is 8" stop'), expected)
    assert text.kind == "output"


# ---- property tests: reference programs written here


def reference_sum(n: int, xs: list[int], prompts: list[bool], bias: int = 0) -> Trace:
    """The summation task as a program would run it: optionally print how many values remain
    before each read, then print the sum (plus ``bias``)."""
    events: list = [In(n)]
    for i, x in enumerate(xs):
        if prompts[i]:
            events.append(Print(n - i))
        events.append(In(x))
    events.append(Print(sum(xs) + bias))
    return Trace(tuple(events))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=30), st.randoms())
def test_reference_program_runs_are_accepted(xs, rnd):
    prompts = [rnd.random() < 0.5 for _ in xs]
    trace = reference_sum(len(xs), xs, prompts)
    expected = gtrace(SUM, trace.inputs()).trace
    assert cover(trace, expected) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=20), st.randoms(),
       st.integers(-5, 5).filter(bool))
def test_wrong_programs_are_rejected_with_the_right_kind(xs, rnd, bias):
    prompts = [rnd.random() < 0.5 for _ in xs]
    expected = gtrace(SUM, [len(xs), *xs]).trace
    wrong = cover(reference_sum(len(xs), xs, prompts, bias), expected)
    assert wrong is not None and wrong.kind == "output"
    # one value too few: the program prints after n - 1 values
    short = reference_sum(len(xs), xs[:-1], prompts, 0)
    miss = cover(short, expected)
    assert miss is not None and miss.kind == "alignment"
    # a wrong countdown prompt
    if len(xs) > 1:
        bad = list(reference_sum(len(xs), xs, [True] * len(xs)).events)
        bad[1] = Print(len(xs) + 1)
        assert cover(Trace(tuple(bad)), expected) is not None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=6))
def test_gtrace_agrees_with_a_reference_acceptor(values):
    # ([▷x]^Z [x_C = 0] ⇒ E △ 0)^E: the input sequences with a run are exactly those whose
    # only 0 is the last value; its generalized trace has no outputs.
    spec = load(EXAMPLES / "iospec" / "until_zero.iospec")
    valid = bool(values) and values[-1] == 0 and 0 not in values[:-1]
    evaluation = gtrace(spec, values)
    assert (evaluation.trace is not None) == valid
    if valid:
        assert evaluation.trace.steps == tuple(In(v) for v in values)


def test_overflow_warnings():
    spec = parse("[> n : pos] ([len(x_A) = n_C] => E else [> x : int])^E [{product(x_A)} >]")
    big = [3] + [10**6] * 3
    assert gtrace(spec, big, 64).warnings == ()
    huge = [4] + [10**6] * 4
    warnings = gtrace(spec, huge, 64).warnings
    assert warnings and "64-bit" in warnings[0]
    rnd = random.Random(1)
    small = [3] + [rnd.randint(-9, 9) for _ in range(3)]
    assert gtrace(spec, small, 64).warnings == ()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.randoms())
def test_generated_inputs_run_through_a_reference_program_match(seed, rnd):
    # any input sequence the generator gives, run through the reference program above (with
    # prompts or without), is covered by the generalized trace of the same inputs
    from kinduct.frontends.iospec.inputs import inputs_for_path
    from kinduct.frontends.iospec.paths import Bound, explore

    rng = random.Random(seed)
    for path in explore(SUM, Bound(5)).satisfiable():
        for n, *xs in inputs_for_path(path, 2, rng).sequences:
            trace = reference_sum(n, xs, [rnd.random() < 0.5 for _ in xs])
            assert cover(trace, gtrace(SUM, [n, *xs]).trace) is None


def test_example_run_for_feedback():
    from kinduct.frontends.iospec.traces import example_run, show_trace

    expected = gtrace(SUM, [2, 5, 3]).trace
    run = example_run(expected)
    assert show_trace(run) == "?2 ?5 ?3 !8 stop" and cover(run, expected) is None
    echo = gtrace(load(EXAMPLES / "iospec" / "stop_invalid.iospec"), [3]).trace
    assert show_trace(example_run(echo)) == "?3 !3 stop"
