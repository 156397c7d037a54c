"""The RASP paper's own programs and operators as printed (``../shared/seeds/rasp-paper.txt``).

Section 2's elementwise examples (``pow``, ``pairwise_mul``, and ``**``), appendix B.2's
``score``/``select_best`` (its matrices, and Table 1's Dyck-2 row: 3 layers, 1 head), and the
figures whose text has a slip (Figure 10's missing comma, Figure 13's missing ``return``, B.2's
self-reference), which must be reported at the real fault.  Expected values are the paper's
printed ones or computed here in plain Python, never by kinduct's evaluator.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.frontends.rasp.compiler import compile_flow
from kinduct.frontends.rasp.evaluate import evaluate
from kinduct.frontends.rasp.interp import load_program, load_text
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES
from tests.frontends.rasp.rasp_helpers import kinduct, kinduct_json
from tests.frontends.rasp.test_rasp_encoding import agree

RASP = EXAMPLES / "rasp"

SECTION2 = """
s1 = indices + 1;
s2 = indices + 4;
plus = s1 + s2;
plus2 = s1 + 2;
square = pow(s1, 2);
greater = s1 > 2;
product = pairwise_mul(s1, s2);
starred = s1 ** 2;
tower = 2 ** indices ** 2;
caret = 2 ^ indices ^ 2;
"""


def test_section2_elementwise_examples():
    # s1 = [1, 2, 3] and s2 = [4, 5, 6] on an input of length 3, as in section 2
    p = load_text(SECTION2)
    word = list("abc")
    got = {name: evaluate(p.sop(name), word) for name in
           ("s1", "s2", "plus", "plus2", "square", "greater", "product", "starred")}
    assert got["s1"] == [1, 2, 3] and got["s2"] == [4, 5, 6]
    assert got["plus"] == [5, 7, 9]
    assert got["plus2"] == [3, 4, 5]
    assert got["square"] == [1, 4, 9]
    assert got["greater"] == [False, False, True]
    assert got["product"] == [4, 10, 18]
    assert got["starred"] == [1, 4, 9]
    # ** nests to the right, as ^ does: 2 ** (i ** 2)
    assert evaluate(p.sop("tower"), word) == [2 ** (i ** 2) for i in range(3)]
    assert evaluate(p.sop("caret"), word) == evaluate(p.sop("tower"), word)


def test_pow_and_pairwise_mul_are_elementwise_and_cost_no_layer():
    p = load_text(SECTION2)
    for name in ("square", "product", "starred"):
        assert compile_flow(p.sop(name)).layers == 0


# Appendix B.2: sel_best(sel, sc) with sel = [[T,T,T],[T,T,F],[F,F,F]] and every row of sc
# [0, 1, 2] is [[F,F,T],[F,T,F],[F,F,F]].
B2 = """
sel = select(indices, 3 - indices - indicator(indices == 2), <);
best = select_best(sel, score(indices, 1));
picked = aggregate(best, indices, -1);
flipped = select_best(select(1, 1, ==), score(indices, -1));
tie = aggregate(select_best(select(1, 1, ==), score(indices % 2, 1)), indices);
"""


def test_select_best_matrix_of_appendix_b2():
    p = load_text(B2)
    word = list("abc")
    assert evaluate(p.sop("sel", selector_ok=True), word) == [[True, True, True],
                                                              [True, True, False],
                                                              [False, False, False]]
    assert evaluate(p.sop("best", selector_ok=True), word) == [[False, False, True],
                                                               [False, True, False],
                                                               [False, False, False]]
    assert evaluate(p.sop("picked"), word) == [2, 1, -1]


def test_score_multiplies_key_by_query():
    # score([0, 1, 2], [1, -1, 1]): row q is key * query[q]; the best of a full row is the
    # largest product, so a query of -1 prefers the smallest key
    p = load_text("q = 1 - 2 * indicator(indices == 1);\n"
                  "best = aggregate(select_best(select(1, 1, ==), score(indices, q)), indices);\n")
    assert evaluate(p.sop("best"), list("abc")) == [2, 0, 2]


def test_select_best_ties_keep_every_best_key():
    p = load_text(B2)
    word = list("abcd")
    # scores indices % 2 = [0, 1, 0, 1]: keys 1 and 3 tie, the aggregate averages them
    assert evaluate(p.sop("tie"), word) == [2, 2, 2, 2]
    assert evaluate(p.sop("flipped", selector_ok=True), word) == [[True, False, False, False]] * 4


def _dyck2_ptf(word: str) -> list[str]:
    """Dyck-2-PTF (section 5): T balanced, P legal prefix not balanced, F illegal."""
    out, stack, dead = [], [], False
    for c in word:
        if not dead:
            if c in "({":
                stack.append(c)
            elif not stack or {"(": ")", "{": "}"}[stack.pop()] != c:
                dead = True
        out.append("F" if dead else ("T" if not stack else "P"))
    return out


def test_dyck2_with_select_best_is_dyck2_ptf():
    p = load_program(RASP / "dyck2.rasp")
    target = p.sop("dyck2")
    assert evaluate(target, list("({})(}")) == list("PPPTPF")
    for n in range(1, 6):
        for letters in itertools.product("(){}", repeat=n):
            assert evaluate(target, list(letters)) == _dyck2_ptf("".join(letters)), letters


def test_dyck2_compiles_to_table1_row(capsys):
    # Table 1, Dyck-2 PTF (with select_best): 3 layers, 1 head (the widest layer)
    code, summary = kinduct_json(capsys, "rasp", "draw", RASP / "dyck2.rasp", "dyck2")
    assert code == 0
    assert summary["layers"] == 3 and max(summary["heads_per_layer"]) == 1
    # the pure-RASP Figure 8 needs a layer and two heads more (appendix B.2)
    code, pure = kinduct_json(capsys, "rasp", "draw", RASP / "dyck3.rasp", "dyck3")
    assert pure["layers"] == 4 and sum(pure["heads_per_layer"]) == sum(summary["heads_per_layer"]) + 2


def test_bounded_check_with_select_best(capsys):
    code, out, err = kinduct(capsys, "rasp", "check", RASP / "dyck2.rasp", "--equiv", "dyck2",
                             f"{RASP / 'dyck3.rasp'}:dyck3", "--alphabet", "(){}",
                             "--max-length", "4")
    assert code == 0, out + err
    assert "valid" in out


def test_bounded_check_finds_the_wrong_best(capsys, tmp_path):
    # the first opener of the same depth instead of the last: wrong on (){} (length 4)
    wrong = (RASP / "dyck2.rasp").read_text().replace("score(indices, 1)", "score(indices, -1)")
    path = tmp_path / "wrong.rasp"
    path.write_text(wrong)
    code, objs = kinduct_json(capsys, "rasp", "check", path, "--equiv", "dyck2",
                              f"{RASP / 'dyck3.rasp'}:dyck3", "--alphabet", "(){}",
                              "--max-length", "4")
    assert code == 40
    prop = next(o for o in objs if o.get("objectType") == "property")
    word = "".join(prop["input"])
    assert prop["values"]["dyck2"] != _dyck2_ptf(word)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a", "b", "1", "("]), min_size=1, max_size=4))
def test_select_best_encoding_agrees_with_evaluator(word):
    p = load_text("k = indicator(tokens == \"a\") - indices;\n"
                  "best = select_best(select(tokens, tokens, ==) or select(indices, 0, ==), "
                  "score(k, indices + 1));\n"
                  "picked = aggregate(best, indices, -1);\n")
    agree(p.sop("best", selector_ok=True), word)
    agree(p.sop("picked"), word)


FIG10 = """reverse = aggregate(
    select(indices,
        length-indices-1, ==)
    tokens );
"""

FIG13 = """def sort(vals, keys, assume_bos=False) {
    smaller = select(keys, keys, <) or
        (select(keys, keys, ==) and
        select(indices, indices, <) );
    num_smaller =
        selector_width(smaller,
                        assume_bos=assume_bos);
    target_pos = num_smaller if
        not assume_bos else
    (0 if indices==0 else (num_smaller+1));
    sel_new =
        select(target_pos, indices, ==);
    sort = aggregate(sel_new, vals);
}
"""

B2_SNIPPET = """possible_open_for_close =
    select(indices, indices, <) and
    select(tokens, "(", ==);
open_for_close = select_best(
    open_for_close,
    score(indices, 1) );
"""


@pytest.mark.parametrize("text,where,message", [
    (FIG10, "3:30", "missing ',' at the end of this line (before 'tokens' on line 4)"),
    (FIG13, "14:1", "function 'sort' (line 1) has no 'return'"),
    (B2_SNIPPET, "5:5", "unknown name 'open_for_close' (used in its own definition)"),
    ("x = aggregate(select(indices, indices, ==) tokens);\n", "1:44", "missing ',' before 'tokens'"),
    ("x = [1 2];\n", "1:8", "missing ',' before '2'"),
    ("x = 1\ny = 2;\n", "1:6", "missing ';' at the end of this line"),
    # Figure 2 prints two statements on one line
    ("s = select(indices, indices, ==)  x = aggregate(s, tokens);\n", "1:35",
     "missing ';' before 'x'"),
    ("x = score(indices, 1) + 1;\n", "1:5", "'+' cannot take a scorer"),
    # Figure 12 defines is_repr and uses isnt_repr
    ("is_repr = tokens == \"a\";\nx = select(isnt_repr, False, ==);\n", "2:12",
     "unknown name 'isnt_repr' (did you mean 'is_repr'?)"),
    ("x = select_best(indices, score(indices, 1));\n", "1:5",
     "select_best's first argument must be a selector"),
    ("x = select_best(select(1, 1, ==), indices);\n", "1:5",
     "select_best's second argument must be a scorer"),
    ("x = aggregate(score(indices, 1), indices);\n", "1:5",
     "aggregate's first argument must be a selector, not a scorer"),
])
def test_paper_slips_are_reported_at_the_fault(capsys, tmp_path, text, where, message):
    path = tmp_path / "fig.rasp"
    path.write_text(text)
    code, out, err = kinduct(capsys, "rasp", "eval", path, "x", "ab")
    assert code == 3, out + err
    assert "Traceback" not in err
    assert f"fig.rasp:{where}: error: " in err and message in err, err


def test_fixed_figures_give_the_papers_values():
    # Figure 10 with its comma: reverse("abc") = "cba"; Figure 13 with its return: sort
    fig10 = load_text(FIG10.replace("==)\n", "==),\n"))
    assert evaluate(fig10.sop("reverse"), list("abcde")) == list("edcba")
    fig13 = load_text(FIG13.replace("    sort = aggregate", "    return aggregate")
                      + "s = sort(tokens, tokens);\n")
    assert evaluate(fig13.sop("s"), list("cabd")) == list("abcd")
    with pytest.raises(InputError):
        load_text(FIG13)


FIG15_PRINTED = """1 def num_prevs(bools) {
2     prevs = select(indices,indices,<=);
3     return (indices+1) *
4         aggregate(prevs,
5             indicator(bools));
6 }
7 n_opens = num_prevs(tokens=="(");
8 n_closes = num_prevs(tokens==")");
9 balance = n_opens - n_closes;
10 prev_imbalances = num_prevs(balance<0);
11 dyck1PTF = "F" if prev_imbalances > 0
12             else
13             ("T" if balance==0 else "P");
"""


def test_figure_with_its_printed_line_numbers():
    p = load_text(FIG15_PRINTED)
    # section 5 prints Dyck1_ptf("()()") = "PTPTF", five letters for four positions; by the
    # task's definition each prefix is P (legal, open), T (balanced) or F (illegal)
    assert evaluate(p.sop("dyck1PTF"), list("()()")) == list("PTPT")
    assert evaluate(p.sop("dyck1PTF"), list("(()))(")) == list("PPPTFF")


def test_line_numbers_errors_keep_their_columns(capsys, tmp_path):
    path = tmp_path / "fig.rasp"
    path.write_text("1 reverse = aggregate(\n2     select(indices,\n3         length-indices-1, ==)\n"
                    "4     tokens );\n")
    code, out, err = kinduct(capsys, "rasp", "eval", path, "reverse", "abc")
    assert code == 3 and "fig.rasp:3:32: error: missing ','" in err


@pytest.mark.parametrize("text", [
    "x = 1;\n",                       # nothing numbered
    "1 x = 1;\n",                     # one numbered line is no figure
    "1 x = 1;\n3 y = 2;\n",           # not consecutive
    "2 x = 1;\n3 y = 2;\n",           # not from 1
    "1 x = 1;\ny = 2;\n",             # a line without its number
])
def test_only_numbered_figures_lose_their_numbers(text):
    from kinduct.frontends.rasp.syntax import unnumbered

    assert unnumbered(text) == text


def test_numbered_blank_lines():
    from kinduct.frontends.rasp.syntax import unnumbered

    assert unnumbered("1 x = 1;\n2\n3 y = x;\n") == "  x = 1;\n \n  y = x;\n"
