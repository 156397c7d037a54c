"""Parsing .iospec files: every example parses, the constructs mean what the syntax table says
(checked through the evaluator on small inputs), and bad specifications are located errors."""

from __future__ import annotations

import pytest

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.parser import load, parse
from kinduct.frontends.iospec.semantics import gtrace
from kinduct.frontends.iospec.traces import show_gtrace
from kinduct.kernel.errors import InputError
from tests.conftest import EXAMPLES

SPECS = sorted((EXAMPLES / "iospec").glob("*.iospec"))


def run(text: str, inputs: list[int]) -> str:
    evaluation = gtrace(parse(text), inputs)
    return show_gtrace(evaluation.trace) if evaluation.trace else f"error: {evaluation.error.message}"


def test_examples_parse_and_one_is_the_summation_task():
    assert len(SPECS) >= 10
    for path in SPECS:
        assert isinstance(load(path), A.Spec)
    assert [p.name for p in SPECS if "sum" in p.name] == ["sum.iospec"]


def test_sum_structure():
    spec = load(EXAMPLES / "iospec" / "sum.iospec")
    read, loop, write = spec.body.items
    assert isinstance(read, A.Read) and read.var == "n" and read.values == A.Compare(">", 0)
    assert isinstance(loop, A.Loop) and isinstance(write, A.Write)
    branch = loop.body.items[0]
    assert isinstance(branch, A.Branch) and isinstance(branch.then.items[0], A.Exit)
    assert None in branch.orelse.items[0].options  # the optional output
    assert spec.variables() == ("n", "x")


@pytest.mark.parametrize("text, inputs, expected", [
    # concatenation, outputs, terms
    ("[> x : int] [{x_C * 2 + 1} >]", [3], "?3 !{7} stop"),
    ("[> x : int] [{x_C / 2, x_C % 2} >]", [-7], "?-7 !{-4,1} stop"),
    ("[> x : int] [{abs(x_C)} >] [{-x_C} >]", [-2], "?-2 !{2.2} stop"),
    # the empty specification is the unit of composition
    ("0 [> x : int] nop 0", [1], "?1 stop"),
    # branching: the else-part takes the rest of the sequence
    ("[> x : int] [x_C > 0] => [{1} >] else [{2} >] [{3} >]", [5], "?5 !{1} stop"),
    ("[> x : int] [x_C > 0] => [{1} >] else [{2} >] [{3} >]", [-5], "?-5 !{2.3} stop"),
    ("[> x : int] ([x_C > 0] => [{1} >] else [{2} >]) [{3} >]", [5], "?5 !{1.3} stop"),
    # iteration, exit markers, history
    ("([> x : int] [x_C = 0] => E else 0)^E [{len(x_A)} >]", [4, 0], "?4 ?0 !{2} stop"),
    ("([> x : int] [x_C = 0] => E else 0)^->E [{sum(x_A)} >]", [4, 3, 0], "?4 ?3 ?0 !{7} stop"),
    ("[> x : int] ([> x : int] [x_C + x_C^-1 = 0] => E else 0)^E", [2, 5, -5], "?2 ?5 ?-5 stop"),
    ("([> x : int] [x_C = 0] => E else 0)^E [{max(x_A), min(x_A)} >]", [4, -1, 0],
     "?4 ?-1 ?0 !{-1,4} stop"),
    ("([> x : int] [count(0, x_A) = 2] => E else 0)^E", [0, 1, 0], "?0 ?1 ?0 stop"),
    ("([> x : int] [elem(7, x_A) or len(x_A) >= 3] => E else 0)^E", [1, 7], "?1 ?7 stop"),
    ("([> x : int] [not (x_C != 0) && true] => E else 0)^E", [1, 0], "?1 ?0 stop"),
    ("([> x : int] [x_C = 0] => E else 0)^E [{product(reverse(x_A))} >]", [2, 3, 0],
     "?2 ?3 ?0 !{0} stop"),
    # E discards the rest of the body (equation 8.7)
    ("([> x : int] ([x_C = 0] => ([true] => E else 0) [{9} >] else 0) [{1} >])^E", [3, 0],
     "?3 !{1} ?0 stop"),
    # value sets and input modes
    ("[> x : nat & !{3} | -5..-1]", [-3], "?-3 stop"),
    ("[> x : nat & !{3} | -5..-1]", [3], "error: input 3 (number 1) is not in ((nat & !({3})) | -5..-1), "
     "the values x may take"),
    ("[> x : pos else stop] [{x_C} >]", [0], "?0 stop"),
    ("[> x : pos else retry] [{x_C} >]", [0, -1, 4], "?0 ?-1 ?4 !{4} stop"),
    ("[> x : {2, 4} else stop] [{x_C} >]", [4], "?4 !{4} stop"),
    ("[> x : >= 10 else stop] [{x_C} >]", [9], "?9 stop"),
    # optional outputs fuse
    ("[> x : int] [{eps, x_C} >] [{ε, 2} >]", [1], "?1 !{ε,1,2,1.2} stop"),
])
def test_constructs(text, inputs, expected):
    assert run(text, inputs) == expected


@pytest.mark.parametrize("text, line, col, words", [
    ("[> x : int]\n[{x_C} >\n", 2, 9, "unexpected end of input"),
    ("[> x : int] [{x_C} >] ]", 1, 23, "unexpected ']'"),
    ("[> x : int] [{x_C} >] (", 1, 24, "end of input"),
    ("[> x : int] [{y_C} >]", 1, 15, "never read"),
    ("[> x : int] [{x} >]", 1, 15, "x_C for the current value"),
    ("[> x_C : int]", 1, 4, "names the variable itself"),
    ("[> x : int] [{foo(x_A)} >]", 1, 15, "unknown function 'foo'"),
    ("[> x : int] [{sum(x_C)} >]", 1, 19, "must be a list"),
    ("[> x : int] [{x_C > 1} >]", 1, 15, "an output must be an integer"),
    ("[> x : int] [x_C + 1] => 0 else 0", 1, 14, "must be a Boolean"),
    ("[> x : int] [{eps} >]", 1, 13, "at least one term besides"),
    ("[> x : 3..1]", 1, 8, "empty"),
    ("[> x : int]\nE", 2, 1, "outside an iteration"),
    ("([> x : int])^E", 1, 1, "never be left"),
    ("([> x : int] E)^E", 1, 14, "directly in an iteration body"),
    ("([> x : int] [x_C = 0] => (([true] => E else 0))^E else 0)^E", 1, 1, "never be left"),
    ("([x_A = 0] => E else 0)^E", 1, 3, "must be an integer"),
    ("([true] => E else [{1} >])^E", 1, 1, "neither reads"),
    ("[> n : int] ([n_C = 0] => E else [> x : int])^E", 1, 14, "no read in the iteration body"),
    ("[{x_C} >] [> x : int]", 1, 3, "before x has surely been read"),
    ("[> y : int] [y_C > 0] => [> x : int] else 0 [{x_C} >]", 1, 47, "before x has surely been read"),
])
def test_located_errors(text, line, col, words):
    with pytest.raises(InputError) as info:
        parse(text, "bad.iospec")
    err = info.value
    assert err.location.file == "bad.iospec"
    assert (err.location.line, err.location.column) == (line, col), err.render()
    if words:
        assert words in err.message, err.message
    rendered = err.render()
    assert rendered.startswith(f"bad.iospec:{line}:{col}: error:") and "^" in rendered


def test_well_formed_variants_accepted():
    # x_C after a loop whose every exit follows a read of x, and after a read in both branches
    parse("([> x : int] [x_C = 0] => E else 0)^E [{x_C} >]")
    parse("[> y : int] [y_C > 0] => [> x : int] else [> x : nat] [{x_C} >]")
    # the exit condition may mention variables the body reads, next to others
    parse("[> n : nat] ([len(x_A) = n_C] => E else [> x : int])^E")


def test_deep_nesting_is_an_error_not_a_crash():
    deep = "(" * 300 + "0" + ")" * 300
    with pytest.raises(InputError):
        parse(deep)
