"""Path trees and generated inputs: the document's counts (25 paths and 125 tests for the
summation task, one path for §5.2, 2^l - 1 for §7.3), pruning that loses nothing, and inputs
checked by reference computations and by brute force against the evaluator."""

from __future__ import annotations

import itertools
import math
import random

import pytest
import z3

from kinduct.frontends.iospec.inputs import inputs_for_path
from kinduct.frontends.iospec.parser import load
from kinduct.frontends.iospec.paths import DEFAULT_UNFOLDINGS, Bound, explore
from kinduct.frontends.iospec.semantics import gtrace
from tests.conftest import EXAMPLES


def spec(name: str):
    return load(EXAMPLES / "iospec" / f"{name}.iospec")


def all_inputs(name: str, bound: Bound | None = None, per_path: int = 5, seed: int = 0):
    tree = explore(spec(name), bound)
    rng = random.Random(seed)
    return [(p, inputs_for_path(p, per_path, rng).sequences) for p in tree.satisfiable()]


def test_summation_has_25_paths_and_125_tests():
    assert DEFAULT_UNFOLDINGS == 25
    found = all_inputs("sum")
    assert len(found) == 25
    assert sorted(len(p.inputs) for p, _ in found) == list(range(2, 27))
    tests = [seq for _, seqs in found for seq in seqs]
    assert len(tests) == 125
    for path, seqs in found:
        assert len(set(seqs)) == 5
        for seq in seqs:
            n = seq[0]
            assert n >= 1 and len(seq) == n + 1 == len(path.inputs)  # the task, computed here
            assert gtrace(spec("sum"), seq).trace is not None


def test_single_satisfiable_path():
    tree = explore(spec("single_path"))
    assert len(tree.paths) == 1 and len(tree.paths[0].inputs) == 3
    unpruned = explore(spec("single_path"), prune=False)
    assert len(unpruned.satisfiable()) == 1
    assert len(unpruned.paths) == DEFAULT_UNFOLDINGS + 1  # exit after 0..25 reads


def test_two_paths_and_their_inputs():
    found = all_inputs("two_paths")
    assert len(found) == 2
    first, second = found
    assert all(x > y for x, y in first[1]) and all(x <= y for x, y in second[1])


@pytest.mark.parametrize("inputs", [1, 3, 5])
def test_all_satisfiable_tree_has_2_to_the_l_minus_1_paths(inputs):
    tree = explore(spec("all_paths"), Bound(DEFAULT_UNFOLDINGS, inputs))
    assert len(tree.satisfiable()) == 2 ** inputs - 1
    assert tree.pruned == 0 and tree.queries == len(tree.paths)  # no prefix queries


def test_exceed_inputs_follow_their_paths():
    for path, seqs in all_inputs("exceed", Bound(6)):
        for n, *xs in seqs:
            totals = list(itertools.accumulate(xs, initial=0))
            assert n >= 0 and all(t <= n for t in totals[:-1]) and totals[-1] > n
            assert len(xs) + 1 == len(path.inputs)


def test_pruning_loses_no_satisfiable_path():
    bound = Bound(DEFAULT_UNFOLDINGS, 4)
    pruned = explore(spec("hangman"), bound)
    full = explore(spec("hangman"), bound, prune=False)
    assert pruned.pruned > 0
    show = sorted(p.show() for p in pruned.satisfiable())
    assert show == sorted(p.show() for p in full.satisfiable())
    assert len(full.paths) > len(full.satisfiable())


def _models(path, values) -> bool:
    pairs = [(i.symbol, z3.IntVal(v)) for i, v in zip(path.inputs, values, strict=True)]
    formula = z3.And([c.formula for c in path.constraints])
    return z3.is_true(z3.simplify(z3.substitute(formula, *pairs) if pairs else formula))


@pytest.mark.parametrize("name, domain, longest", [
    ("two_paths", range(-2, 3), 2),
    ("until_zero", range(-1, 2), 4),
    ("zero_pair", range(-1, 2), 4),
    ("stop_invalid", range(-2, 3), 2),
    ("single_path", range(0, 2), 4),
    ("retry", range(0, 3), 4),
    ("stop_on_zero", range(0, 3), 4),
])
def test_paths_cover_exactly_the_input_sequences_with_a_run(name, domain, longest):
    # Brute force: an input sequence has a run (the evaluator says so) iff it satisfies a path
    # of its length (Conjecture 2a, within the bound).
    s = spec(name)
    paths = explore(s, Bound(DEFAULT_UNFOLDINGS, longest), prune=False).paths
    for length in range(longest + 1):
        same = [p for p in paths if len(p.inputs) == length]
        for values in itertools.product(domain, repeat=length):
            has_run = gtrace(s, values).trace is not None
            covered = [p for p in same if _models(p, values)]
            assert has_run == bool(covered), (values, has_run)
            assert len(covered) <= 1  # paths are disjoint


def test_overflow_constraints_keep_computations_in_range():
    bits = 8
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    tree = explore(spec("product"), Bound(6), int_bits=bits)
    assert len(tree.satisfiable()) == 6
    rng = random.Random(3)
    for path in tree.satisfiable():
        for n, *xs in inputs_for_path(path, 3, rng).sequences:
            assert lo <= n <= hi
            partial = list(itertools.accumulate(xs, lambda a, b: a * b))
            assert all(lo <= v <= hi for v in [*xs, *partial]), xs
            assert lo <= math.prod(xs) <= hi


def test_seeds_give_other_inputs():
    a = [s for _, seqs in all_inputs("sum", Bound(3), seed=1) for s in seqs]
    b = [s for _, seqs in all_inputs("sum", Bound(3), seed=2) for s in seqs]
    assert len(a) == len(b) == 15 and a != b


def test_a_path_with_few_models_gets_few_inputs():
    # x ∈ {1, 2}: two input sequences exist, not five
    from kinduct.frontends.iospec.parser import parse

    tree = explore(parse("[> x : {1, 2}] [{x_C} >]"))
    [path] = tree.satisfiable()
    assert sorted(inputs_for_path(path, 5, random.Random(0)).sequences) == [(1,), (2,)]


def test_division_in_conditions_rounds_down_and_inputs_follow():
    from kinduct.frontends.iospec.parser import parse

    s = parse("[> x : int] [> y : !{0}] [x_C / y_C = -2 and x_C % y_C = 1] => [{1} >] else [{2} >]")
    first, second = explore(s).satisfiable()
    rng = random.Random(5)
    for x, y in inputs_for_path(first, 4, rng).sequences:
        assert y != 0 and x // y == -2 and x % y == 1  # Python's // and % round down too
    for x, y in inputs_for_path(second, 4, rng).sequences:
        assert y != 0 and not (x // y == -2 and x % y == 1)


def test_a_term_without_value_is_a_located_error_unless_its_path_is_unsatisfiable():
    from kinduct.frontends.iospec.evaluate import EvalError
    from kinduct.frontends.iospec.parser import parse

    with pytest.raises(EvalError) as info:
        explore(parse("[> x : int]\n[{x_C^-1} >]"))
    assert info.value.loc.line == 2 and "has been read 1 time" in info.value.message
    # max of the empty list only on a path no input reaches: not an error
    tree = explore(parse("[> n : pos] ([n_C = 0] => [{max(x_A)} >] else [{1} >]) [> x : int]"))
    assert len(tree.satisfiable()) == 1


def test_outputs_keep_their_terms_defined():
    from kinduct.frontends.iospec.parser import parse

    s = parse("[> x : int] [> y : -2..2] [{x_C % y_C} >]")
    [path] = explore(s).satisfiable()
    assert [c.kind for c in path.constraints][-1] == "defined"
    sequences = inputs_for_path(path, 4, random.Random(2)).sequences
    assert len(sequences) == 4 and all(y != 0 for _, y in sequences)
    assert all(gtrace(s, seq).trace is not None for seq in sequences)
