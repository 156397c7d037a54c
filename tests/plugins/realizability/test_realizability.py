"""``kinduct check --realizability`` (Kind 2's ``--enable CONTRACTCK``) on small contracts whose
answers Kind 2 v3.0.0 gave (``test_realizability_kind2.py`` asks it again where it is installed): the
results, Kind 2's JSON objects, the exit codes, and deadlocking traces that really deadlock
(checked by a solver query of their own on the contract system)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.frontends.lucent.realizability import build
from kinduct.kernel.cli import main
from kinduct.kernel.contracts import ContractSystem
from kinduct.plugins.realizability import game
from tests.kind2_schema import validate

DATA = Path(__file__).resolve().parents[2] / "data" / "realizability"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "lucent"

R, U, N = "realizable", "unrealizable", "unknown"

#: Kind 2 v3.0.0's answers (--enable CONTRACTCK -json), per model: (top, context) -> result,
#: and the satisfiability it reports for the unrealizable ones.
EXPECTED: dict[str, dict[tuple[str, str], str]] = {
    "imported_bounds": {("M", "contract"): U, ("M", "environment"): R},
    "imported_assumed": {("M", "contract"): R, ("M", "environment"): R},
    "memory_conflict": {("R", "contract"): U, ("R", "environment"): R},
    "env_contradiction": {("E", "contract"): R, ("E", "environment"): U},
    "env_pre_output": {("E3", "contract"): R, ("E3", "environment"): R},
    "env_deadlock": {("E4", "contract"): R, ("E4", "environment"): U},
    "base_unrealizable": {("E5", "contract"): U, ("E5", "environment"): R},
    "assume_pre_output": {("E6", "contract"): R, ("E6", "environment"): R},
    "bounded_increase_assumed": {("E7", "contract"): U, ("E7", "environment"): R},
    "bounded_increase": {("E8", "contract"): U, ("E8", "environment"): R},
    "modes_ok": {("Md", "contract"): R, ("Md", "environment"): R},
    "modes_conflict": {("Md3", "contract"): U, ("Md3", "environment"): R},
    "modes_guarantee": {("Md4", "contract"): U, ("Md4", "environment"): R},
    "function_gap": {("Fn", "contract"): U, ("Fn", "environment"): R},
    "body_ignored": {("B", "environment"): R, ("B", "contract"): U},
    "subranges_ok": {("T", "contract"): R, ("T", "environment"): R},
    "subranges_conflict": {("T3", "contract"): U, ("T3", "environment"): R},
    "subranges_assumed": {("T4", "contract"): R, ("T4", "environment"): R},
    "ghost_counter": {("G", "contract"): U, ("G", "environment"): R},
    "contract_call": {("S", "contract"): R, ("S", "environment"): R,
                      ("Sofar", "environment"): R, ("Sofar", "contract"): R},
    "mixed": {("P", "environment"): R, ("P", "contract"): R, ("F", "environment"): R,
              ("F", "contract"): R, ("N", "environment"): R, ("N", "contract"): R},
    "reals": {("Avg", "contract"): U, ("Avg", "environment"): R},
    "bools": {("Toggle", "contract"): U, ("Toggle", "environment"): R},
    "bools_ok": {("Arbiter", "contract"): R, ("Arbiter", "environment"): R},
    "enums": {("Next", "contract"): U, ("Next", "environment"): R},
    "counter_ok": {("Sat", "contract"): R, ("Sat", "environment"): R},
    "imported_contract": {("User", "contract"): U, ("User", "environment"): R},
    "unguarded_pre": {("Delay", "contract"): R, ("Delay", "environment"): R},
    "unguarded_pre_assumed": {("Up", "contract"): U, ("Up", "environment"): R},
    "free_const": {("C1", "contract"): U, ("C1", "environment"): R},
    "free_const_ok": {("C2", "contract"): R, ("C2", "environment"): R},
    "const_input": {("C3", "contract"): U, ("C3", "environment"): R},
    "records_arrays": {("Sw", "contract"): R, ("Sw", "environment"): R},
    "body_calls": {("Outer", "environment"): R, ("Outer", "contract"): U,
                   ("Inner", "environment"): R, ("Inner", "contract"): R},
    "reals_half": {("Half", "contract"): U, ("Half", "environment"): R},
    "env_pre_guarded": {("Em", "contract"): R, ("Em", "environment"): U},
    "sofar_ghost": {("Lim", "contract"): R, ("Lim", "environment"): R,
                    ("Sofar", "environment"): R, ("Sofar", "contract"): R},
}

#: Kind 2's satisfiability of the unrealizable ones.
SATISFIABLE = {
    ("imported_bounds", "M"): True, ("memory_conflict", "R"): True, ("env_contradiction", "E"): False,
    ("env_deadlock", "E4"): True, ("base_unrealizable", "E5"): False,
    ("bounded_increase_assumed", "E7"): False, ("bounded_increase", "E8"): False,
    ("modes_conflict", "Md3"): True, ("function_gap", "Fn"): False, ("body_ignored", "B"): False,
    ("subranges_conflict", "T3"): True, ("ghost_counter", "G"): True, ("reals", "Avg"): True,
    ("bools", "Toggle"): True, ("enums", "Next"): True, ("imported_contract", "User"): True,
    ("modes_guarantee", "Md4"): True, ("unguarded_pre_assumed", "Up"): True,
    ("free_const", "C1"): True, ("const_input", "C3"): True, ("body_calls", "Outer"): False,
    ("reals_half", "Half"): True, ("env_pre_guarded", "Em"): True,
}


def realizability(path: Path, *extra: str, capsys) -> tuple[int, list[dict]]:
    """Kind 2's objects for the model (checked against the JSON schema) and the exit code."""
    code = main(["check", "--realizability", str(path), "--json", "--timeout", "60", *extra])
    objects = json.loads(capsys.readouterr().out)
    validate(objects)
    return code, objects


def analyses(objects: list[dict]) -> list[tuple[str, str, dict, dict | None]]:
    """(top, context, realizabilityCheck, satisfiabilityCheck or None) per analysis."""
    out = []
    for i, o in enumerate(objects):
        if o["objectType"] != "analysisStart":
            continue
        check = objects[i + 1]
        assert check["objectType"] == "realizabilityCheck"
        sat = next((x for x in objects[i + 2:] if x["objectType"] in ("satisfiabilityCheck",
                                                                     "analysisStop")), None)
        out.append((o["top"], o["context"], check,
                    sat if sat and sat["objectType"] == "satisfiabilityCheck" else None))
    return out


@pytest.mark.parametrize("model", sorted(EXPECTED))
def test_answers_as_kind2(model: str, capsys) -> None:
    code, objects = realizability(DATA / f"{model}.lus", capsys=capsys)
    found = analyses(objects)
    assert [(top, ctx) for top, ctx, _, _ in found] == list(EXPECTED[model])  # Kind 2's order
    results = {(top, ctx): check["result"] for top, ctx, check, _ in found}
    assert results == EXPECTED[model]
    assert code == (40 if U in results.values() else 30 if N in results.values() else 0)
    for top, ctx, check, sat in found:
        assert set(check) <= {"objectType", "runtime", "result", "deadlockingTrace", "conflictingSet",
                              "reason"}
        if check["result"] != U:
            assert sat is None and "deadlockingTrace" not in check
            continue
        assert sat["result"] == ("satisfiable" if SATISFIABLE[(model, top)] else "unsatisfiable")
        conflict = check["conflictingSet"]
        assert conflict["objectType"] == "modelElementSet"
        assert conflict["class"] == "conflicting constraints"
        (node,) = conflict["nodes"]
        assert node["name"] == top and conflict["size"] == len(node["elements"]) >= 1
        for element in node["elements"]:
            assert element["category"] in ("guarantee", "require", "ensure")
            assert element["line"] >= 1 and element["file"].endswith(f"{model}.lus")
        replay(DATA / f"{model}.lus", top, ctx, check["deadlockingTrace"])


def replay(path: Path, top: str, context: str, blocks: list[dict]) -> None:
    """The trace keeps the assumptions at every step and the guarantees before the last; at
    the last step, with its inputs, no output satisfies the guarantees.  The JSON trace shows
    the component's streams; the constants and the first values of unguarded ``pre`` (the
    environment's too) are read from the check's own deadlock."""
    checked = load_checked(path)
    system = build(checked, top, context)
    node = checked.nodes[top]
    (block,) = blocks
    shown = {s["name"]: dict(s["instantValues"]) for s in block["streams"]}
    deadlock = game.check(system).deadlock
    assert deadlock is not None
    steps = max(len(s["instantValues"]) for s in block["streams"])
    assert len(deadlock.steps) == steps
    last = steps - 1
    mgr = system.env.formula_manager
    sub = system.env.substituter.substitute
    # every step's copy of the system's variables
    regs = {r: mgr.Symbol(f"{r.symbol_name()}@replay0", r.symbol_type()) for r in system.registers}
    fixed = [mgr.EqualsOrIff(regs[r], constant(mgr, r, deadlock.initial[r.symbol_name()], None))
             for r in system.registers if r.symbol_name().startswith("%const.")]
    # a const input of the component is a register: the trace shows the value it keeps
    fixed += [mgr.EqualsOrIff(regs[r], constant(mgr, r, shown[r.symbol_name()][0],
                                                node.types.get(r.symbol_name())))
              for r in system.registers if r.symbol_name() in shown]
    frames = []
    run = [sub(system.init, regs)]
    for k in range(steps):
        step_vars = {v: mgr.Symbol(f"{v.symbol_name()}@replay{k}", v.symbol_type())
                     for v in (*system.inputs, *system.outputs, *system.auxiliaries)}
        rename = {**regs, **step_vars}
        frames.append(rename)
        run += [sub(d, rename) for d in system.definitions]
        run += [sub(a.formula, rename) for a in system.assumptions]
        if k < last:
            run += [sub(g, rename) for g in guarantees(system)]
        regs = {r: sub(system.updates[r], rename) for r in system.registers}
        for v in system.inputs + (system.outputs if k < last else ()):
            name = v.symbol_name()
            t = node.types.get(name)
            if name in shown:
                value = shown[name][k]
                assert constant(mgr, v, value, t) == constant(mgr, v, deadlock.steps[k][name], None) \
                    or t is not None and t.kind == "enum"
            else:  # an oracle: the environment's choice, not a stream
                value = deadlock.steps[k][name]
            fixed.append(mgr.EqualsOrIff(rename[v], constant(mgr, v, value, t)))
    with system.env.factory.Solver(name="z3") as s:
        s.add_assertion(mgr.And(run + fixed))
        assert s.solve(), "the deadlocking trace is not a run of the contract"
        s.add_assertion(mgr.And([sub(g, frames[last]) for g in guarantees(system)]))
        assert not s.solve(), "an output satisfies the guarantees at the last step"


def guarantees(system: ContractSystem) -> list:
    mgr = system.env.formula_manager
    out = [g.formula for g in system.guarantees]
    for m in system.modes:
        req = mgr.And([r.formula for r in m.requires])
        out += [mgr.Implies(req, e.formula) for e in m.ensures]
    return out


def constant(mgr, v, value, t):
    if t is not None and t.kind == "enum" and isinstance(value, str):
        return mgr.Int(list(t.items).index(value))
    if v.symbol_type().is_bool_type():
        return mgr.Bool(value)
    if v.symbol_type().is_real_type():
        return mgr.Real(Fraction(value["num"], value["den"]) if isinstance(value, dict) else Fraction(value))
    return mgr.Int(value)


def test_kind2_spelling_and_objects(capsys) -> None:
    code = main(["--enable", "CONTRACTCK", "-json", str(DATA / "imported_bounds.lus")])
    objects = json.loads(capsys.readouterr().out)
    assert code == 40
    assert objects[0]["objectType"] == "kind2Options" and objects[0]["enabled"] == ["contractck"]
    assert [o["objectType"] for o in objects[1:]] == [
        "analysisStart", "realizabilityCheck", "log", "satisfiabilityCheck", "analysisStop",
        "analysisStart", "realizabilityCheck", "analysisStop"]
    check = objects[2]
    assert list(check) == ["objectType", "runtime", "result", "deadlockingTrace", "conflictingSet"]
    block = check["deadlockingTrace"][0]
    assert list(block) == ["blockType", "name", "guaranteesTrace", "streams"]
    assert [(s["name"], s["class"], s["type"]) for s in block["streams"]] == [
        ("x", "input", "int"), ("y", "output", "int")]
    assert block["guaranteesTrace"][0]["name"] == "guarantee[L3C3]"
    assert block["guaranteesTrace"][0]["instantValues"] == [[0, False]]
    assert check["conflictingSet"]["nodes"][0]["elements"] == [
        {"category": "guarantee", "name": "guarantee[L3C3]", "line": 3, "column": 3,
         "file": str(DATA / "imported_bounds.lus")}]


def test_modes_trace_sorted_and_subrange_info(capsys) -> None:
    _, objects = realizability(DATA / "modes_guarantee.lus", capsys=capsys)
    block = analyses(objects)[0][2]["deadlockingTrace"][0]
    assert list(block) == ["blockType", "name", "assumptionsTrace", "guaranteesTrace", "modesTrace",
                           "streams"]
    assert [m["name"] for m in block["modesTrace"]] == [
        "alpha.requires", "alpha.ensures", "zeta.requires", "zeta.ensures"]
    _, objects = realizability(DATA / "subranges_conflict.lus", capsys=capsys)
    block = analyses(objects)[0][2]["deadlockingTrace"][0]
    y = next(s for s in block["streams"] if s["name"] == "y")
    assert y["type"] == "subrange" and y["typeInfo"] == {"min": 0, "max": 5}
    assert [a["name"] for a in block["assumptionsTrace"]] == ["SubRange[L1C18]"]


def test_no_fixpoint_is_unknown(tmp_path: Path, capsys) -> None:
    """A contract whose viable states shrink forever (Kind 2 runs until its timeout)."""
    model = tmp_path / "descent.lus"
    model.write_text("node imported Q(x: int) returns (y: int);\ncon\n  guarantee y >= 0;\n"
                     "  guarantee true -> y < pre y;\nnoc\n")
    code, objects = realizability(model, "--bound", "4", capsys=capsys)
    (q_contract, q_env) = analyses(objects)
    assert q_contract[2]["result"] == N and "4 iterations" in q_contract[2]["reason"]
    assert q_env[2]["result"] == R
    assert code == 30


def test_imported_callee_in_contract_is_unknown(tmp_path: Path, capsys) -> None:
    model = tmp_path / "callee.lus"
    model.write_text("node imported C(x: int) returns (y: int);\n"
                     "node imported D(x: int) returns (y: int);\ncon\n  guarantee y = C(x);\nnoc\n")
    code, objects = realizability(model, "--main", "D", capsys=capsys)
    results = {(top, ctx): (c["result"], c.get("reason", "")) for top, ctx, c, _ in analyses(objects)}
    assert list(results) == [("D", "environment"), ("D", "contract")]
    assert results[("D", "contract")][0] == N and "imported" in results[("D", "contract")][1]
    assert code == 30


def test_text_report(capsys) -> None:
    code = main(["check", "--realizability", str(DATA / "memory_conflict.lus"),
                 "--check-contract-is-sat", "false", "--check-environment", "false"])
    out = capsys.readouterr().out
    assert code == 40
    assert "unrealizable" in out and "satisfiable" not in out and "environment" not in out
    assert "deadlocking trace of the contract of R" in out
    assert "conflicting constraints (2)" in out


@pytest.mark.parametrize(("example", "code"), [("realizable.lus", 0), ("unrealizable.lus", 40)])
def test_examples(example: str, code: int, capsys) -> None:
    got, objects = realizability(EXAMPLES / example, capsys=capsys)
    assert got == code
    found = analyses(objects)
    for top, ctx, check, _ in found:
        if check["result"] == U:
            replay(EXAMPLES / example, top, ctx, check["deadlockingTrace"])


def test_environment_with_const_inputs_is_unknown(capsys) -> None:
    """Kind 2 finds this environment realizable, though the const input ``n`` is chosen once
    and the output ``y`` may outgrow it; kinduct does not decide it (docs/design.md §15).
    Where the environment can choose it once (``const_input.lus``), it is realizable."""
    code, objects = realizability(DATA / "const_environment.lus", capsys=capsys)
    results = {(top, ctx): (c["result"], c.get("reason", "")) for top, ctx, c, _ in analyses(objects)}
    assert results[("CE", "contract")] == (R, "")
    assert results[("CE", "environment")][0] == N and "const" in results[("CE", "environment")][1]
    assert code == 30


def test_any_in_contract_is_unknown(tmp_path: Path, capsys) -> None:
    """Who picks an ``any`` of a contract is not settled; Kind 2 answers unknown too."""
    model = tmp_path / "any.lus"
    model.write_text("node imported A(x: int) returns (y: int);\ncon\n"
                     "  var z: int = any { v: int | v > x };\n  guarantee y = z;\nnoc\n")
    code, objects = realizability(model, capsys=capsys)
    results = {(top, ctx): (c["result"], c.get("reason", "")) for top, ctx, c, _ in analyses(objects)}
    assert results[("A", "contract")][0] == N and "'any'" in results[("A", "contract")][1]
    assert results[("A", "environment")] == (R, "")
    assert code == 30
