"""The engines through the CLI: certificates in the JSON output and ``--certify``."""

from __future__ import annotations

import pytest

from kinduct.kernel.errors import UsageError
from tests.conftest import properties, run_cli, run_json
from tests.kind2_schema import validate

COUNTER = """\
(declare-fun x () Int)
(declare-fun xn () Int)
(define-fun .x () Int (! x :next xn))
(define-fun init () Bool (! (= x 0) :init true))
(define-fun trans () Bool (! (= xn (ite (= x 10) 0 (+ x 1))) :trans true))
(define-fun p () Bool (! (not (= x 15)) :invar-property 0))
"""

TWINS = """\
(declare-fun x () Int)
(declare-fun xn () Int)
(declare-fun y () Int)
(declare-fun yn () Int)
(declare-fun go () Bool)
(define-fun .x () Int (! x :next xn))
(define-fun .y () Int (! y :next yn))
(define-fun init () Bool (! (and (= x 0) (= y 0)) :init true))
(define-fun trans () Bool (! (and (= xn (ite go (+ x 1) x)) (= yn (ite go (+ y 1) y))) :trans true))
(define-fun p () Bool (! (=> (= x 7) (= y 7)) :invar-property 0))
"""


@pytest.mark.parametrize("engine,model", [("ic3", COUNTER), ("invgen", TWINS), ("ic3", TWINS)])
@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_certified_proofs(tmp_path, engine, model, solver):
    path = tmp_path / "m.vmt"
    path.write_text(model)
    code, objs = run_json("check", path, "--engine", engine, "--solver", solver, "--certify",
                          "--timeout", "60")
    validate(objs)
    prop = properties(objs)["P0"]
    assert code == 0, prop
    assert prop["answer"]["value"] == "valid"
    assert prop["invariant"].startswith("(")
    assert prop["certified"] is True
    assert prop["certifiedBy"] == {"z3": "cvc5", "cvc5": "z3"}[solver]


def test_portfolio_proves_what_kind_cannot(tmp_path):
    path = tmp_path / "twins.vmt"
    path.write_text(TWINS)
    code, objs = run_json("check", path, "--timeout", "60")
    prop = properties(objs)["P0"]
    assert code == 0 and prop["answer"]["value"] == "valid"
    assert prop["answer"]["source"] in ("ic3", "invgen", "kind", "chc", "ic3ia")
    code, objs = run_json("check", path, "--engine", "kind", "--bound", "6", "--timeout", "60")
    assert properties(objs)["P0"]["answer"]["value"] == "unknown"


def test_engine_settings_from_the_command_line(tmp_path):
    """``--engine-opt ENGINE.SETTING=VALUE`` reaches the engine's typed options; a setting the
    engine does not have, a value of the wrong type or an unknown engine is a usage error."""
    path = tmp_path / "m.vmt"
    path.write_text(TWINS)
    code, objs = run_json("check", path, "--engine", "invgen", "--engine-opt", "invgen.rounds=1",
                          "--engine-opt", "invgen.runs=4", "--timeout", "60")
    assert code == 0 and [p["answer"]["value"] for p in properties(objs).values()] == ["valid"]
    for bad, what in (("ic3.nope=1", "no setting 'nope'"), ("invgen.rounds=many", "rounds"),
                      ("invgen.budget=nan", "finite"), ("magic.x=1", "magic"),
                      ("ic3invgen", "ENGINE.SETTING=VALUE")):
        proc = run_cli("check", path, "--engine", "ic3,invgen", "--engine-opt", bad)
        assert proc.returncode == UsageError.exit_code, (bad, proc.stderr)
        assert what in proc.stderr and "Traceback" not in proc.stderr, (bad, proc.stderr)
