"""``kernel/beside.Beside``: a computation forked off gives its own result back, and where the
child cannot (it raises, its result does not pickle) the result is computed in this process."""

from __future__ import annotations

import os

from kinduct.kernel.beside import Beside


def test_the_result_comes_from_another_process() -> None:
    here = os.getpid()
    pending = Beside(lambda: (os.getpid(), [n * n for n in range(1000)]))
    pid, squares = pending.result()
    assert pid != here
    assert squares == [n * n for n in range(1000)]


def test_a_large_result_is_read_whole() -> None:
    # larger than a pipe's buffer: the child writes while the parent reads
    big = {f"k{i}": [i, None, True] for i in range(50_000)}  # about 1 MB pickled
    assert Beside(lambda: big).result() == big


def test_a_child_that_raises_leaves_the_computation_to_this_process() -> None:
    here = os.getpid()

    def only_here() -> int:
        if os.getpid() != here:
            raise RuntimeError("not in the child")
        return 42

    assert Beside(only_here).result() == 42


def test_a_result_that_does_not_pickle_is_computed_here() -> None:
    here = os.getpid()
    value = Beside(lambda: (lambda: os.getpid())).result()  # a lambda does not pickle
    assert value() == here
