"""A falsifiable verdict from an engine that does not promise shortest counterexamples is
replaced by a shorter one when there is one (kernel/shortest.py)."""

from __future__ import annotations

from pysmt.shortcuts import INT

from kinduct.kernel.runner import RunOptions
from kinduct.kernel.shortest import promises_shortest, shortest
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Trace, Verdict


def stepper() -> TransitionSystem:
    """x from 0, x' = x + i with an input i in {0, 1}; the property x < 2."""
    b = SystemBuilder("stepper")
    mgr = b.mgr
    i = b.input("i", INT)
    b.add_assumption(mgr.And(mgr.LE(mgr.Int(0), i), mgr.LE(i, mgr.Int(1))))
    x, _ = b.state("x", INT)
    b.add_init(mgr.Equals(x, mgr.Int(0)))
    b.update(x, mgr.Plus(x, i))
    b.add_property(Property("below2", mgr.LT(x, mgr.Int(2))))
    return b.build()


def run_of(inputs: list[int]) -> Trace:
    """The stepper's execution on ``inputs`` (computed here, not by the kernel)."""
    steps, x = [], 0
    for i in inputs:
        steps.append({"x": x, "i": i})
        x += i
    return Trace.of(steps)


def long_verdict(engine: str) -> Verdict:
    trace = run_of([0, 0, 0, 1, 1, 0])  # x reaches 2 at step 5
    assert trace.steps[-1]["x"] == 2
    return Verdict("below2", Answer.FALSIFIABLE, engine=engine, k=5, trace=trace)


def test_a_long_counterexample_of_ic3_is_replaced_by_a_shortest_one() -> None:
    system = stepper()
    got = shortest(system, long_verdict("ic3"), RunOptions(timeout=60))
    assert got.answer is Answer.FALSIFIABLE and got.k == 2 and got.trace is not None
    # the shorter trace is an execution of the stepper that violates the property
    xs = [int(s["x"]) for s in got.trace.steps]
    ins = [int(s["i"]) for s in got.trace.steps]
    assert xs[0] == 0 and all(xs[t + 1] == xs[t] + ins[t] for t in range(len(xs) - 1))
    assert all(v in (0, 1) for v in ins) and xs[-1] >= 2


def test_engines_that_deepen_step_by_step_are_trusted() -> None:
    assert promises_shortest("bmc") and promises_shortest("kind")
    assert not promises_shortest("ic3") and not promises_shortest("kind2")
    verdict = long_verdict("bmc")
    assert shortest(stepper(), verdict, RunOptions(timeout=60)) is verdict


def test_a_shortest_counterexample_is_kept() -> None:
    verdict = Verdict("below2", Answer.FALSIFIABLE, engine="ic3", k=2, trace=run_of([1, 1, 0]))
    assert shortest(stepper(), verdict, RunOptions(timeout=60)) is verdict
