"""Regressions found by probing kinduct against Kind 2 with models written from the primer:
each test is the smallest model of one difference that was found and fixed."""

from __future__ import annotations

from kinduct.frontends.lucent.model import load_systems
from kinduct.kernel.frontend import LoadOptions
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
