"""Regressions found by probing kinduct against Kind 2 with models written from the primer:
each test is the smallest model of one difference that was found and fixed."""

from __future__ import annotations

from kinduct.frontends.lucent.model import load_systems
from kinduct.kernel.frontend import LoadOptions
from tests.conftest import ROOT
from tests.frontends.lucent.helpers import answers


def write(tmp_path, text, name="m.lus"):
    p = tmp_path / name
    p.write_text(text)
    return p


UNRELATED = """
node Helper(x: int) returns (y: int);
let
  y = x + 1;
  check "helper" y > x;
tel

node Main(x: int) returns (y: int);
let
  y = Helper(x);
  check "main" y > x;
  --%MAIN;
tel

node Other(x: int) returns (y: int);
let
  y = x;
  check "other" y = x;
tel
"""


def test_modular_analyses_start_at_the_main_node(tmp_path):
    """``--modular`` analyses the main node (``--%MAIN`` here) and what it calls, callees
    first, as Kind 2 does; an unrelated node is not analysed."""
    src = write(tmp_path, UNRELATED)
    systems = load_systems(src, LoadOptions(modular=True))
    assert [s.name for s in systems] == ["Helper", "Main"]
    got = answers(src, modular=True)
    assert got["helper"] == got["main"] == "valid" and "other" not in got
    assert [s.name for s in load_systems(src, LoadOptions(modular=True, main="Other"))] == ["Other"]


KIND2_NAMES = ROOT / "tests" / "data" / "kind2" / "names"  # each also compared with Kind 2


def test_a_subrange_bound_may_name_a_free_constant():
    """``subrange [0, N]`` with ``const N: int;`` was refused ("expected a constant integer
    expression"); Kind 2 reads it as a subtype whose predicate names N."""
    got = answers(KIND2_NAMES / "free_constant_bound.lus")
    assert got == {"SubType[L3C23]": "valid", "SubType[L3C29]": "falsifiable", "le": "valid"}


def test_ghost_obligations_of_abstracted_and_imported_callees():
    """With ``--compositional`` a callee with a body owes its contract's ghost obligations in
    its own analysis, not at the call site; an imported callee owes them at the call site."""
    body = answers(KIND2_NAMES / "ghost_of_abstracted_callee.lus", compositional=True)
    imported = answers(KIND2_NAMES / "ghost_of_imported_callee.lus", compositional=True)
    assert body == {"nonneg": "valid"}
    assert imported == {"Callee[L12C7].SubRange[L3C7]": "falsifiable", "nonneg": "valid"}


def test_one_obligation_per_constrained_component_and_declaration():
    got = answers(KIND2_NAMES / "record_and_section_obligations.lus")
    assert got == {"SubRange[L2C33]_1": "falsifiable", "SubRange[L2C33]_2": "valid",
                   "SubRange[L3C3]_1": "valid", "SubRange[L3C3]_2": "falsifiable",
                   "SubRange[L5C3]_1": "valid", "SubRange[L5C3]_2": "falsifiable"}
