"""``kinduct check --print-invariants`` (Kind 2's ``--print_invs``): a valid property's
invariant in Lucent syntax.  The printed text is put back into the model as ``check``
statements and kinduct proves each valid, so the test does not trust the printer: a wrong
name (``%first`` as anything but the first step, ``pre n`` as ``n``, an enumeration's
constant by a wrong index, a real as an integer) gives a check that fails or does not parse.
The JSON keeps the SMT-LIB invariant and adds the Lucent text beside it."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from kinduct.kernel.cli import main
from tests.frontends.lucent.helpers import LUCENT

#: Streams of the main node only, with ``pre`` (of a stream, of an expression), ``->``, an
#: enumeration, reals and a record.
MODEL = """\
type Color = enum { Red, Green, Blue };
type P = struct { x : int; y : real };
node Top (up : bool; dx : real) returns (n : int; c : Color; s : real; p : P);
var d : int; b : bool;
let
  n = 0 -> if up then pre n + 1 else pre n;
  d = 0 -> pre n;
  c = Red -> if pre c = Red then Green else if pre c = Green then Blue else Red;
  s = 0.0 -> if dx > 0.0 then pre s + dx else pre s;
  p = P { x = n; y = s };
  b = true -> pre (n >= 0 and s >= 0.0);
  check n >= 0;
  check d <= n;
  check c = Blue => (false -> pre c = Green);
  check s >= 0.0;
  check p.x >= 0 and p.y >= 0.0;
  check b;
--INVARIANTS
tel
"""

#: An invariant IC3 finds here reads the memory of ``pre z`` twice (``pre z <= 0 or 0 <= pre z``).
#: The property reads ``p`` too: the engines work on its cone of influence (kernel/cone.py), and
#: a register it does not read would not be in their invariants.
TWICE = """\
node hold () returns (p : int);
var z : int;
let
  z = 0;
  p = pre z;
  check z >= 0 and z <= 0 and (true -> p = 0);
--INVARIANTS
tel
"""

#: A stream of a node instance: named by its call site, with a note, never invented.
CALLS = """\
node C (x : bool) returns (n : int);
let
  n = 0 -> if x then pre n + 1 else pre n;
tel
node Top (x : bool) returns (m : int);
let
  m = C(x);
  check m >= 0;
tel
"""


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def properties(out: str) -> list[dict]:
    return [o for o in json.loads(out) if o.get("objectType") == "property"]


def printed_invariants(model: Path) -> list[str]:
    """The Lucent invariants of the valid properties of ``model``, by ic3 and chc."""
    printed: list[str] = []
    for engine in ("ic3", "chc"):
        code, out, err = cli("check", model, "--json", "--engine", engine, "--timeout", "30")
        for p in properties(out):
            if p["answer"]["value"] == "valid" and "invariant" in p:
                assert isinstance(p["invariant"], str)  # the SMT-LIB text, as before
                assert "sourceInvariant" in p, p
                printed.append(p["sourceInvariant"])
    return list(dict.fromkeys(printed))


def proved_back(tmp_path: Path, model: str, invariants: list[str]) -> dict[str, str]:
    """The verdicts of ``invariants`` put back into ``model`` as named checks."""
    checks = "\n".join(f'  check "inv{j}" {text};' for j, text in enumerate(invariants))
    back = tmp_path / "back.lus"
    back.write_text(model.replace("--INVARIANTS", checks))
    code, out, err = cli("check", back, "--json", "--timeout", "60")
    verdicts = {p["name"]: p["answer"]["value"] for p in properties(out) if p["name"].startswith("inv")}
    assert len(verdicts) == len(invariants), (verdicts, err)
    return verdicts


def test_printed_invariants_are_proved_valid_back_in_the_model(tmp_path: Path) -> None:
    model = tmp_path / "top.lus"
    model.write_text(MODEL)
    printed = printed_invariants(model)
    joined = " ".join(printed)
    # the names the translation records were used (the test is not vacuous)
    assert "(0 -> pre n)" in joined and "(true -> false)" in joined, printed
    assert any(c in joined for c in ("Red", "Green", "Blue")), printed
    assert "0.0" in joined and "(false -> pre ((n >= 0) and (s >= 0.0)))" in joined, printed
    assert set(proved_back(tmp_path, MODEL, printed).values()) == {"valid"}


def test_a_memory_read_twice_is_one_value_at_the_first_step(tmp_path: Path) -> None:
    """``(0 -> pre z)``, not ``pre z``: two unguarded ``pre z`` are two arbitrary values at the
    first step, and the invariant read with bare ``pre z`` is falsified there (which also shows
    the check above can fail)."""
    model = tmp_path / "twice.lus"
    model.write_text(TWICE)
    printed = printed_invariants(model)
    assert any(x.count("(0 -> pre z)") >= 2 for x in printed), printed
    assert set(proved_back(tmp_path, TWICE, printed).values()) == {"valid"}
    bare = [x.replace("(0 -> pre z)", "(pre z)") for x in printed if x.count("(0 -> pre z)") >= 2]
    assert "falsifiable" in proved_back(tmp_path, TWICE, bare).values()


def test_an_instance_stream_is_named_by_its_call_site_with_a_note(tmp_path: Path) -> None:
    model = tmp_path / "calls.lus"
    model.write_text(CALLS)
    code, out, err = cli("check", model, "--engine", "ic3", "--print-invariants", "--timeout", "30")
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("invariant for m >= 0")]
    assert "%" not in line and "C[L7C7].n" in line, line
    assert "  -- C[L7C7].n: a stream of the instance of C at C[L7C7]" in out, out
    code, out, err = cli("check", model, "--engine", "ic3", "--timeout", "30")
    assert "invariant for" not in out


def test_what_has_no_lucent_name_stays_smt_lib_with_a_note(tmp_path: Path) -> None:
    """A bounded property's step counter has no Lucent name: the SMT-LIB invariant (of the
    unreachable target) is printed, and why."""
    model = tmp_path / "bounded.lus"
    model.write_text("node Top (up : bool) returns (n : int);\nlet\n"
                     "  n = 0 -> if up then pre n + 1 else pre n;\n"
                     "  check reachable n = 10 within 5;\ntel\n")
    code, out, err = cli("check", model, "--engine", "ic3", "--print-invariants", "--timeout", "30")
    (line,) = [x for x in out.splitlines() if x.startswith("invariant for")]
    assert "(SMT-LIB)" in line and "%step" in line, out
    assert "has no Lucent name" in out, out


def test_a_contracts_ghost_is_named_with_a_note(tmp_path: Path) -> None:
    """A ghost stream (and the generated "assumptions held so far") is no stream the body can
    read: named with a note, never printed as a plain name of the node."""
    model = LUCENT / "ghost_contract.lus"
    code, out, err = cli("check", model, "--engine", "ic3", "--print-invariants", "--timeout", "30")
    assert code == 0, err
    notes = [x for x in out.splitlines() if x.startswith("  -- ")]
    assert any("once: a ghost stream of the contract of Trigger" in x for x in notes), out
    assert all("%sofar" not in x or "every assumption has held so far" in x for x in notes), out


def test_the_printer_on_formulas_no_engine_gave_here() -> None:
    """Operators Lucent lacks give a note, never a crash or invented text; the others print as
    written by hand here (xor is PySMT's ``not (a = b)``; an enumeration's range is its
    constants)."""
    from pysmt.shortcuts import (
        BV,
        GE,
        LE,
        LT,
        Array,
        ArrayType,
        Equals,
        ForAll,
        Int,
        Ite,
        Minus,
        Select,
        Symbol,
        Times,
        Xor,
        get_env,
    )
    from pysmt.typing import BOOL, INT

    from kinduct.frontends.lucent.trace.invariants import source_formula
    from kinduct.kernel.system import SourceTerm, TransitionSystem

    x, b, e = Symbol("inv.x", INT), Symbol("inv.b", BOOL), Symbol("inv.e", INT)
    a = Symbol("inv.a", ArrayType(INT, INT))
    terms = {x: SourceTerm("x"), b: SourceTerm("b"),
             e: SourceTerm("C[L3C4].e", readable=False, values=("A", "B", "C"), note="e: in C")}
    system = TransitionSystem(get_env(), (), (), (), Equals(x, x), Equals(x, x), source_terms=terms)
    shown = {f: source_formula(system, f) for f in (
        ForAll([x], GE(x, x)), Equals(Select(a, x), x), Equals(BV(3, 8), BV(3, 8)),
        Xor(b, b), Ite(b, Times(Int(-2), x), Minus(x, Int(3))), LE(Int(1), e), LT(e, Int(0)),
        Equals(e, Int(2)), Equals(Array(INT, Int(0)), a))}
    texts = [(s.text, s.readable, s.notes) for s in shown.values()]
    assert [t for t, _, _ in texts[:3]] == [None, None, None]
    assert all(n for _, _, n in texts[:3])
    assert texts[3] == ("(not (b = b))", True, ())
    assert texts[4] == ("(if b then ((- 2) * x) else (x - 3))", True, ())
    assert texts[5] == ("((C[L3C4].e = B) or (C[L3C4].e = C))", False, ("e: in C",))
    assert texts[6][0] == "false" and texts[7][0] == "(C[L3C4].e = C)"
    assert texts[8][0] is None
