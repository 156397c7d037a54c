"""Compilation to layers and heads: the paper's Table 1 (Done-when 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kinduct.frontends.rasp.compiler import compile_flow
from kinduct.frontends.rasp.interp import load_text
from tests.conftest import EXAMPLES, run_cli
from tests.frontends.rasp.rasp_helpers import kinduct, kinduct_json

RASP = EXAMPLES / "rasp"

TABLE1 = [
    # file, s-op, layers, heads per layer (Table 1 reports the maximum width)
    ("reverse", "reverse", 2, [1, 1]),
    ("hist", "hist_bos", 1, [1]),
    ("hist", "hist_nobos", 1, [2]),
    ("hist2", "hist2", 2, [2, 1]),
    ("sort", "sort", 2, [1, 1]),
    ("most_freq", "most_freq", 3, [2, 1, 1]),
    ("dyck1", "dyck1_ptf", 2, [1, 1]),
    # section B.2: the pure-RASP Dyck-3 compiles to 4 layers with width at most 2
    ("dyck3", "dyck3", 4, [1, 2, 1, 1]),
]


@pytest.mark.parametrize(("file", "sop", "layers", "heads"), TABLE1)
def test_table1_sizes(capsys, file: str, sop: str, layers: int, heads: list[int]) -> None:
    code, summary = kinduct_json(capsys, "rasp", "draw", RASP / f"{file}.rasp", sop)
    assert code == 0
    assert summary["layers"] == layers
    assert summary["heads_per_layer"] == heads


def test_draw_writes_pictures_and_text(capsys, tmp_path: Path) -> None:
    for name in ("flow.svg", "flow.png"):
        out = tmp_path / name
        code, text, err = kinduct(capsys, "rasp", "draw", RASP / "reverse.rasp", "reverse", "abcde",
                                  "--out", out)
        assert code == 0, err
        assert out.exists() and out.stat().st_size > 1000
        assert "layer 2" in text and "flip" in text and "[e d c b a]" in text
    assert (tmp_path / "flow.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    assert (tmp_path / "flow.png").read_bytes().startswith(b"\x89PNG")


def test_draw_json_through_the_installed_command(tmp_path: Path) -> None:
    out = tmp_path / "hist.svg"
    proc = run_cli("rasp", "draw", RASP / "hist.rasp", "hist_nobos", "aabbba", "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    summary = json.loads(proc.stdout)
    assert summary["layers"] == 1 and summary["heads_per_layer"] == [2]
    assert out.exists()


def test_compiler_rules() -> None:
    program = load_text("""
        s1 = select(indices, indices, <=);
        a = aggregate(s1, indicator(tokens == "a"));
        b = aggregate(select(indices, indices, <=), indicator(tokens == "b"));  # same head as a
        c = a - b;                                  # feed-forward: no layer
        d = aggregate(s1, indicator(c > 0));        # same selector, later layer: new head
        e = aggregate(select(tokens, tokens, ==), indices);   # a second head in layer 1
        f = d + e;
        g = tokens + "x";                           # no attention at all
    """)
    flow = compile_flow(program.sop("f"))
    assert flow.layers == 2
    assert flow.heads_per_layer == [2, 1]
    first = flow.heads[0]
    assert sorted(len(h.aggregates) for h in first) == [1, 2]
    assert compile_flow(program.sop("g")).summary() == {"layers": 0, "heads_per_layer": []}


def test_selector_width_with_and_without_bos() -> None:
    program = load_text("""
        w = selector_width(select(tokens, tokens, ==));
        wb = selector_width(select(tokens, tokens, ==), assume_bos = True);
    """)
    assert compile_flow(program.sop("w")).heads_per_layer == [2]
    assert compile_flow(program.sop("wb")).heads_per_layer == [1]
