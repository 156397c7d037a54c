"""``unknown_on_solver_failure``: a solver ``unknown`` on a query about several properties
leaves each to be decided on its own, quantifier-free ones first; one still undecidable alone
is ``unknown`` with the solver's reason."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pysmt.typing import INT

from kinduct.kernel.backend import SolverUnknown
from kinduct.kernel.engine import EngineContext
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.engines.common import unknown_on_solver_failure


class _Scripted:
    """Decides a lone quantifier-free property valid; any query naming a quantified one is
    unknown to its solver."""

    name = "scripted"

    def __init__(self) -> None:
        self.runs: list[list[str]] = []

    @unknown_on_solver_failure
    def check(self, system: TransitionSystem, properties: Sequence[Property],
              ctx: EngineContext) -> Iterator[Verdict]:
        self.runs.append([p.name for p in properties])
        if any(not system.env.qfo.is_qf(p.formula) for p in properties):
            raise SolverUnknown("incomplete quantifiers")
        for p in properties:
            yield Verdict(p.name, Answer.VALID)


def test_the_other_properties_are_decided_one_at_a_time():
    b = SystemBuilder("s")
    m = b.mgr
    x, xn = b.state("x", INT)
    b.add_init(m.Equals(x, m.Int(0)))
    b.add_trans(m.Equals(xn, x))
    i = m.FreshSymbol(INT)
    b.add_property(Property("quantified", m.Exists([i], m.GT(i, x))))
    b.add_property(Property("a", m.GE(x, m.Int(0))))
    b.add_property(Property("b", m.LE(x, m.Int(0))))
    system = b.build()
    engine = _Scripted()
    ctx = EngineContext(solver_name="z3", make_solver=lambda: None)  # type: ignore[arg-type]
    got = {v.property: v for v in engine.check(system, system.properties, ctx)}
    assert {k: v.answer for k, v in got.items()} == {
        "a": Answer.VALID, "b": Answer.VALID, "quantified": Answer.UNKNOWN}
    assert "incomplete quantifiers" in got["quantified"].message
    assert engine.runs == [["quantified", "a", "b"], ["a"], ["b"], ["quantified"]]
