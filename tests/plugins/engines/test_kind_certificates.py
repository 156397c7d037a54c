"""``kind``'s valid verdicts carry their proof (the k-inductive conjunction of the group and the
invariants it assumed, the simple-path pairs it used), and the certificate written from it is
checked by the ``z3`` binary: unsat as written, sat once the part the proof needed is taken out.
"""

from __future__ import annotations

import re

from pysmt.typing import BOOL, INT

from kinduct.kernel import certificates
from kinduct.kernel.system import Property, SystemBuilder
from kinduct.kernel.verdict import Answer
from tests.kernel.test_certificates import SCRIPTS, run_z3
from tests.plugins.engines.systems import context, decide, twin_counters


def _write(system, verdict, tmp_path):
    (written,) = certificates.write([(system, [verdict])], tmp_path)
    assert written.missing is None, written.missing
    return written.directory


def test_kind_with_an_assumed_invariant(tmp_path):
    """``x = 7 -> y = 7`` is k-inductive only with ``x = y``, published by another engine."""
    system = twin_counters()
    (verdict,) = decide("kind", system, context(system, inbox=["(= x y)"])).values()
    assert verdict.answer is Answer.VALID and verdict.proof is not None
    folder = _write(system, verdict, tmp_path)
    assert [run_z3(folder / name) for name in SCRIPTS] == ["unsat"] * 3
    # without the invariant it assumed, the induction step fails
    step = (folder / "induction.smt2").read_text()
    body = re.search(r"define-fun cert\.invariant \(.*?\) Bool\n  (.*)\)", step).group(1)
    assert "(= x y)" in body
    weaker = folder / "weaker.smt2"
    weaker.write_text(step.replace(body, body.replace("(= x y)", "true")))
    assert run_z3(weaker) == "sat"


def _unreachable_loop():
    """``s`` goes 0 -> 1 -> 0 from init; from the unreachable loop 2 <-> 3 an input may lead to
    4.  ``s != 4`` is k-inductive for no k (the loop is as long as one likes), but
    3-inductive over simple paths."""
    b = SystemBuilder("loop")
    m = b.mgr
    s, sn = b.state("s", INT)
    go = b.input("go", BOOL)
    b.add_init(m.Equals(s, m.Int(0)))

    def at(v: int):
        return m.Equals(s, m.Int(v))

    b.add_trans(m.Equals(sn, m.Ite(at(0), m.Int(1), m.Ite(at(1), m.Int(0), m.Ite(
        at(2), m.Int(3), m.Ite(at(3), m.Ite(go, m.Int(4), m.Int(2)), s))))))
    b.add_property(Property("not4", m.Not(at(4))))
    return b.build()


def test_kind_with_simple_path_constraints(tmp_path):
    system = _unreachable_loop()
    (verdict,) = decide("kind", system, context(system, max_k=10)).values()
    assert verdict.answer is Answer.VALID
    assert verdict.proof is not None and verdict.proof.distinct
    folder = _write(system, verdict, tmp_path)
    assert [run_z3(folder / name) for name in SCRIPTS] == ["unsat"] * 3
    # the same step without the simple-path constraints has a counterexample (the loop)
    step = (folder / "induction.smt2").read_text()
    loose = folder / "loose.smt2"
    loose.write_text("\n".join(line for line in step.splitlines()
                               if not line.startswith("(assert (not (= |s@")
                               and not line.startswith("(assert (not (= s@")))
    assert loose.read_text() != step
    assert run_z3(loose) == "sat"


def test_certify_rechecks_kind_proofs_with_the_other_solver():
    """``--certify`` re-checks a kind proof with cvc5 (the queries of the scripts); the same
    proof without what it needed is rejected."""
    import attrs

    from kinduct.kernel.certify import certify_proof

    system = _unreachable_loop()
    (verdict,) = decide("kind", system, context(system, max_k=10)).values()
    prop = system.properties[0]
    assert certify_proof(system, prop, verdict.proof, "cvc5") is None
    loose = attrs.evolve(verdict.proof, distinct=())
    assert certify_proof(system, prop, loose, "cvc5") == f"{verdict.proof.k}-induction fails"
    twins = twin_counters()
    (proved,) = decide("kind", twins, context(twins, inbox=["(= x y)"])).values()
    assert certify_proof(twins, twins.properties[0], proved.proof, "cvc5") is None
    weak = attrs.evolve(proved.proof, invariant=proved.proof.invariant.replace("(= x y)", "true"))
    assert certify_proof(twins, twins.properties[0], weak, "cvc5") is not None


def test_certify_flag_on_a_kind_verdict():
    import json

    from tests.conftest import EXAMPLES, run_cli

    proc = run_cli("check", EXAMPLES / "vmt" / "counter.vmt", "--engine", "kind", "--certify",
                   "--json")
    assert proc.returncode == 0, proc.stderr
    (prop,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    assert prop["answer"]["source"] == "kind"
    assert prop["certified"] is True and prop["certifiedBy"] == "cvc5"
