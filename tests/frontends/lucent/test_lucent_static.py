"""Static checks Kind 2 makes and kinduct once skipped (issues 13 and 21): each bad model is
refused with a located input error, never accepted, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import InputError, UnsupportedError
from kinduct.kernel.frontend import LoadOptions

KINDUCT = [sys.executable, "-m", "kinduct.kernel.cli"]

BAD = {
    "empty subrange": ("type T = subrange [5, 1] of int;\nnode N(x: T) returns (y: int);\n"
                       "let\n  y = x;\ntel\n", (1, 10), "empty subrange"),
    "duplicate enumeration constant": ("type E = enum { A, B, A };\n", (1, 10), "'A' is declared twice"),
    "enumeration constant and constant": ("const A = 1;\ntype E = enum { A, B };\n", (2, 10),
                                          "'A' is declared twice"),
    "duplicate constant": ("const c = 1;\nconst c = 2;\n", (2, 7), "declared twice"),
    "constant outside its subrange": ("const c: subrange [0, 5] of int = 7;\n", (1, 35),
                                      "outside of its subrange type"),
    "duplicate type": ("type T = int;\ntype T = bool;\n", (2, 6), "declared twice"),
    "keyword as a name": ("node N(tel: int) returns (y: int);\nlet\n  y = tel;\ntel\n", (1, 8),
                          "'tel' is a keyword"),
    "local variable in a contract": (
        "node N(x: int) returns (y: int);\n(*@contract guarantee y >= l; *)\nvar l: int;\n"
        "let\n  l = x;\n  y = l;\ntel\n", (2, 28), "unknown name 'l'"),
    "output in an assumption through a ghost": (
        "node N(x: int) returns (y: int);\n(*@contract\n  var g: int = y + 1;\n  assume g > 0;\n*)\n"
        "let\n  y = x;\ntel\n", (4, 10), "mentions output 'y'"),
    "unused contract with an unknown name": (
        "contract C(x: int) returns (y: int);\nlet\n  guarantee y = z;\ntel\n", (3, 17),
        "unknown name 'z'"),
    "constant array read out of bounds": ("const a = false^3;\nconst e = a[5];\n", (2, 13),
                                          "out of the bounds"),
    "huge array type": ("type T = int^1000000000;\n", (1, 14), "limit"),
    "huge array constructor": ("node N(x: int) returns (y: int^3);\nlet\n  y = x^1000000000;\ntel\n",
                               (3, 9), "limit"),
    "20,000-digit numeral": ("const c = " + "9" * 20000 + ";\n", (1, 11), "digits"),
    "temporal refinement predicate": (
        "type Inc = subtype { n: int | true -> n > pre n };\n"
        "function F(x: Inc) returns (y: int);\nlet\n  y = x;\ntel\n", (1, 31), "unsupported"),
    "deep nesting": ("const c = " + " + ".join(["1"] * 2000) + ";\n", None, "nest"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_model_is_refused_with_a_location(tmp_path, name):
    text, where, message = BAD[name]
    path = tmp_path / "m.lus"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        load_systems(path, LoadOptions())
    loc = info.value.location
    assert loc is not None and loc.line is not None
    if where is not None:
        assert (loc.line, loc.column) == where


def test_tuple_indexed_by_a_variable_is_reported_as_unsupported(tmp_path):
    path = tmp_path / "m.lus"
    path.write_text("type P = [int, bool];\nnode N(p: P; i: int) returns (y: int);\nlet\n"
                    "  y = p[i];\ntel\n")
    with pytest.raises(UnsupportedError, match="tuple indexed") as info:
        load_systems(path, LoadOptions())
    assert (info.value.location.line, info.value.location.column) == (4, 9)


def test_ghost_named_as_a_local_and_output_read_only_under_pre_in_a_callee(tmp_path):
    # a ghost and a local may share a name; an assumption may read an output through a call
    # whose result depends on that argument only under 'pre' (both accepted by Kind 2)
    path = tmp_path / "m.lus"
    path.write_text("""
node f(x, z: int) returns (y: int);
let
  y = x + (0 -> pre z);
tel
node imported top(x: int) returns (y: int);
(*@contract
  var g: int = f(x, y);
  assume g > 0;
  guarantee y > g;
*)
node N(i: bool) returns (out: bool);
(*@contract
  var A: bool = true;
  guarantee A;
*)
var A: bool;
let
  A = false;
  out = i;
tel
""")
    systems = load_systems(path, LoadOptions())
    assert [p.name for s in systems for p in s.properties] == ["guarantee[L15C3]"]


def test_declarations_may_name_later_constants_in_types(tmp_path):
    path = tmp_path / "m.lus"
    path.write_text("type T = subrange [-N, M + 1] of int;\nconst M = N * 2;\nconst N = 3;\n"
                    "node F(x: T) returns (y: int);\nlet\n  y = x;\n  check y <= 7;\ntel\n")
    (system,) = load_systems(path, LoadOptions())
    assert [p.name for p in system.properties] == ["y <= 7"]


def test_command_line_exit_codes(tmp_path):
    bad = tmp_path / "bad.lus"
    bad.write_text(BAD["empty subrange"][0])
    none = tmp_path / "none.lus"
    none.write_text("node N(x: int) returns (y: int);\nlet\n  y = x;\ntel\n")
    got = subprocess.run([*KINDUCT, "check", str(bad)], capture_output=True, text=True)
    assert got.returncode == InputError.exit_code
    assert f"{bad}:1:10:" in got.stderr and "Traceback" not in got.stderr
    # a model without any property is not an error (as in Kind 2): exit 0 with a note
    got = subprocess.run([*KINDUCT, "check", str(none)], capture_output=True, text=True)
    assert got.returncode == 0
    assert "no property" in got.stderr


def test_contract_words_are_names_outside_contracts(tmp_path):
    """Kind 2 takes mode, assume, guarantee, require, ensure and weakly as identifiers
    (FMCAD08's steam boiler has an output ``mode``)."""
    path = tmp_path / "m.lus"
    path.write_text("node N(require: int) returns (mode: int; assume, weakly: bool);\nlet\n"
                    "  mode = require;\n  assume = true;\n  weakly = assume;\n  check mode = require;\ntel\n")
    (system,) = load_systems(path, LoadOptions())
    assert [p.name for p in system.properties] == ["mode = require"]


def test_a_source_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.lus"
    path.write_text("node N(x: int) returns (y: int);\nlet\n  y = x;\ntel\n" + "-- padding\n" * 200_000)
    monkeypatch.setenv("KINDUCT_LUCENT_MAX_MB", "1")
    with pytest.raises(InputError, match="over the Lucent frontend's limit of 1 MB"):
        load_systems(path, LoadOptions())
