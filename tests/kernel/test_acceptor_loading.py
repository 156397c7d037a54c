"""``kernel.acceptor_loading``: any file as a word acceptor, through the registry only.

A plugin's hook (``.regex``, ``.crasp``) first; else a component whose interface is one int
input and one bool output (a Lucent node, reading the indices of the alphabet); else a located
input error (exit 3 on the command line)."""

from __future__ import annotations

import pytest

from kinduct.kernel.acceptor import Query
from kinduct.kernel.acceptor_loading import COMPONENT_ALPHABET, load_acceptor, plugin_acceptor
from kinduct.kernel.errors import InputError
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer
from tests.conftest import EXAMPLES, run_cli

NODE = EXAMPLES / "crasp" / "lucent" / "dyck1.lus"


def test_plugins_read_their_own_kinds():
    regex = load_acceptor(EXAMPLES / "regex" / "tomita2.regex", "A")
    crasp = load_acceptor(EXAMPLES / "crasp" / "dyck1.crasp", "B")
    assert regex.name == "A" and regex.automaton is not None and regex.accepts(list("abab"))
    assert crasp.name == "B" and crasp.accepts(list("[][]")) and not crasp.accepts(list("]["))
    assert plugin_acceptor(NODE, "A") is None  # no plugin claims a .lus file as an acceptor


def test_a_node_is_an_acceptor_through_its_interface():
    from kinduct.frontends.crasp.queries import query_system

    node = load_acceptor(NODE, "A", alphabet=("[", "]"))
    assert node.alphabet == ("[", "]") and load_acceptor(NODE, "A").alphabet == COMPONENT_ALPHABET
    depth2 = load_acceptor(EXAMPLES / "crasp" / "d2.crasp", "B")
    # balanced words (the node) are not all of depth at most 2: BMC finds the shortest one
    system = query_system(Query.INCLUDE, [node, depth2])
    verdict = run(system, RunOptions(engines=("bmc",), timeout=60))[0]
    assert verdict.answer is Answer.FALSIFIABLE
    word = [system.alphabet[step["letter"]] for step in verdict.trace.steps]
    depths = [word[:i].count("[") - word[:i].count("]") for i in range(len(word) + 1)]
    assert min(depths) == 0 and depths[-1] == 0 and max(depths) == 3  # balanced, depth 3
    assert not depth2.accepts(word) and len(word) == 6


def test_files_that_are_no_acceptor(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("hello\n")
    with pytest.raises(InputError, match=r"notes\.md: not an acceptor: no plugin reads '\.md'"):
        load_acceptor(notes, "A")
    with pytest.raises(InputError, match=r"counter\.vmt: not an acceptor \(the vmt frontend"):
        load_acceptor(EXAMPLES / "vmt" / "counter.vmt", "A")
    with pytest.raises(InputError, match="no such file"):
        load_acceptor(tmp_path / "missing.regex", "A")
    proc = run_cli("sample", notes, "--n", "3")
    assert proc.returncode == 3 and "not an acceptor" in proc.stderr and "Traceback" not in proc.stderr
