"""The paper's programs in examples/rasp evaluate to the paper's outputs (Done-when 1)."""

from __future__ import annotations

import pytest

from kinduct.frontends.rasp.evaluate import evaluate, split_input
from kinduct.frontends.rasp.interp import load_program, load_text
from tests.conftest import EXAMPLES, run_cli

RASP = EXAMPLES / "rasp"

PAPER = [
    # file, s-op, input, expected output
    ("reverse", "reverse", "abc", list("cba")),
    ("reverse", "reverse", "abcde", list("edcba")),
    ("hist", "hist", "hello", [1, 1, 2, 2, 1]),
    ("hist", "hist_nobos", "aba", [2, 1, 2]),
    ("hist", "hist_bos", "$aba", ["$", 2, 1, 2]),
    ("hist", "hist_bos", "$aabbaabb", ["$"] + [4] * 8),        # Figure 5
    ("hist", "hist_nobos", "aabbba", [3] * 6),                  # Figure 16
    ("hist2", "hist2", "$abbc", ["$", 2, 1, 1, 2]),
    # Figure 1 / section 2: hist2("$aaabbccdef") = [$, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]
    ("hist2", "hist2", "$aaabbccdef", ["$", 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]),
    ("sort", "sort", "$cba", list("$abc")),
    # Figure 6's input
    ("sort", "sort", "$fedcbaABCDEF", list("$ABCDEFabcdef")),
    ("sort", "sort_nobos", "cbab", list("abbc")),
    ("most_freq", "most_freq", "$abbccddd", list("$dbca$$$$")),
    # Figure 7's input: $aabbccddd -> $dabc$...
    ("most_freq", "most_freq", "$aabbccddd", list("$dabc$$$$$")),
    # section 5: Dyck1_ptf("()())") = "PTPTF" (the paper prints the input as "()()")
    ("dyck1", "dyck1_ptf", "()())", list("PTPTF")),
    # Figure 18: "(()())" is balanced except for ...: P P P T P T F on "(())())"
    ("dyck1", "dyck1_ptf", "(())())", list("PPPTPTF")),
    ("dyck3", "dyck3", "({[]})", list("PPPPPT")),
    ("dyck3", "dyck3", "(]", list("PF")),
    ("dyck3", "dyck3", "()[]{}", list("PTPTPT")),
    ("dyck3", "dyck3", "(())()", list("PPPTPT")),
    ("dyck3", "dyck3", "({)}", list("PPFF")),
    ("shuffle_dyck2", "shuffle_dyck2", "({)}", [True] * 4),
    ("shuffle_dyck2", "shuffle_dyck2", "({)", [False] * 3),
    ("shuffle_dyck2", "shuffle_dyck2", ")(", [False] * 2),
    ("selector_width", "earlier", "abcd", [0, 1, 2, 3]),
    ("selector_width", "same_count", "hello", [1, 1, 2, 2, 1]),
    ("selector_width", "same_count_bos", "$hello", [0, 1, 1, 2, 2, 1]),
]


@pytest.mark.parametrize(("file", "sop", "word", "expected"), PAPER)
def test_paper_outputs(file: str, sop: str, word: str, expected: list) -> None:
    program = load_program(RASP / f"{file}.rasp")
    assert evaluate(program.sop(sop), split_input(word)) == expected


def test_eval_cli_json() -> None:
    proc = run_cli("rasp", "eval", RASP / "hist.rasp", "hist_bos", "$aba", "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    assert json.loads(proc.stdout) == {"sop": "hist_bos", "input": ["$", "a", "b", "a"],
                                       "output": ["$", 2, 1, 2]}


def test_eval_cli_text_and_token_lists() -> None:
    proc = run_cli("rasp", "eval", RASP / "reverse.rasp", "reverse", "abc")
    assert proc.returncode == 0
    assert "['c', 'b', 'a']".replace("'", "") in proc.stdout.replace("'", "")
    proc = run_cli("rasp", "eval", RASP / "sort.rasp", "sort_nobos", "[ca, bb, 'aa']", "--json")
    import json

    assert json.loads(proc.stdout)["output"] == ["aa", "bb", "ca"]


def test_paper_section3_examples() -> None:
    """The small examples of the paper's section 3."""
    program = load_text("""
        a = select(indices, indices, <);
        avg = aggregate(a, indices + 1);
        load1 = select(indices, 1, ==);
        l1 = aggregate(load1, tokens);
        frac_as = aggregate(select_all, 1 if tokens == "a" else 0);
        dashes = tokens if (indices % 2 == 0) else "-";
        has_i = "i" in tokens;
        in_list = tokens in ["a", "b", "c"];
        flip = select(indices, length - indices - 1, ==);
        both = load1 or flip;
        e = (indices + 1) == length;
    """)
    from fractions import Fraction

    assert evaluate(program.sop("avg"), list("hey")) == [0, 1, Fraction(3, 2)]
    assert evaluate(program.sop("l1"), list("hey")) == list("eee")
    assert evaluate(program.sop("frac_as"), list("aab")) == [Fraction(2, 3)] * 3
    assert evaluate(program.sop("dashes"), list("hello")) == list("h-l-o")
    assert evaluate(program.sop("has_i"), list("hi")) == [True, True]
    assert evaluate(program.sop("in_list"), list("hat")) == [False, True, False]
    assert evaluate(program.sop("e"), list("hi")) == [False, True]
    both = evaluate(program.sop("both", selector_ok=True), list("hey"))
    assert both == [[False, True, True], [False, True, False], [True, True, False]]
    # Figure 2: select([1,2,2],[0,1,2],==) aggregated with [4,6,8] gives [0,4,7]
    fig2 = load_text("""
        k = tokens_int;
        s = select(k, indices, ==);
        res = aggregate(s, 2 * indices + 4);
    """)
    assert evaluate(fig2.sop("res"), ["1", "2", "2"]) == [0, 4, 7]


def test_language_features() -> None:
    program = load_text("""
        pairs = {"(": ")", "[": "]"};
        keys = [k for k in pairs];
        total = 0;
        for i in range(4) { total = total + i; }
        a, b = 1, 2;
        def twice(x, times = 2) { y = x * times; return y; }
        t = twice(indices, times = total);   # indices * 6
        u = round(indices / 4);
        v = indicator(tokens in keys) + a + b;
        w = -indices ^ 2;
        z = max(indices, 1);
    """)
    assert evaluate(program.sop("t"), list("abc")) == [0, 6, 12]
    assert evaluate(program.sop("u"), list("abcd")) == [0, 0, 0, 1]
    assert evaluate(program.sop("v"), list("(a[")) == [4, 3, 4]
    assert evaluate(program.sop("w"), list("abc")) == [0, -1, -4]
    assert evaluate(program.sop("z"), list("abc")) == [1, 1, 2]


def test_standard_library() -> None:
    program = load_text("""
        first = not has_prev(tokens);
        n_l = count(tokens, "l");
        has_e = contains(tokens, "e");
        shifted = shift(tokens, 1, "_");
        lengths = length;
        last_l = mark_last_instance(tokens, "l");
        at1 = load_from_location(tokens, 1);
        sorted_desc = sort(tokens, -indices);
    """)
    word = list("hello")
    assert evaluate(program.sop("first"), word) == [True, True, True, False, True]  # section 2
    assert evaluate(program.sop("n_l"), word) == [2] * 5
    assert evaluate(program.sop("has_e"), word) == [True] * 5
    assert evaluate(program.sop("shifted"), word) == list("_hell")
    assert evaluate(program.sop("lengths"), word) == [5] * 5
    assert evaluate(program.sop("last_l"), word) == [False, False, False, True, False]
    assert evaluate(program.sop("at1"), word) == list("eeeee")
    assert evaluate(program.sop("sorted_desc"), word) == list("olleh")
