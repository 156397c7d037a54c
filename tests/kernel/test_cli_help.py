"""Every command's ``--help`` ends with the exit codes and a real example that parses."""

from __future__ import annotations

import argparse
import shlex

import pytest

from kinduct.kernel.cli import build_parser, command_line


def _leaf_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield words, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaf_commands(child, (*words, name))


PARSER = build_parser()
LEAVES = list(_leaf_commands(PARSER))


def test_every_command_is_listed():
    names = {" ".join(words) for words, _ in LEAVES}
    assert {"check", "plugins", "crasp eval", "rasp eval", "bench", "sample"} <= names


@pytest.mark.parametrize("words, parser", LEAVES, ids=[" ".join(w) for w, _ in LEAVES])
def test_help_has_exit_codes_and_a_parsing_example(words, parser):
    text = parser.format_help()
    assert "exit codes:" in text and "3    input error" in text
    example = text.split("example:", 1)[1].strip().splitlines()[0]
    argv = shlex.split(example.split("  (")[0])
    assert argv[0] == "kinduct" and "--help" not in argv, example
    args = PARSER.parse_args(command_line(argv[1:], PARSER))
    assert callable(args.handler)


@pytest.mark.parametrize("words, parser", LEAVES, ids=[" ".join(w) for w, _ in LEAVES])
def test_exit_codes_are_listed_once(words, parser):
    """A command that lists its own exit codes (``testgen`` writes files, it has no verdict)
    does not get the verdict codes as well."""
    text = parser.format_help()
    assert text.count("exit codes:") == 1, " ".join(words)


def test_testgen_lists_its_own_exit_codes_and_exits_0_after_exploring(tmp_path):
    from tests.conftest import EXAMPLES, run_cli

    text = dict((" ".join(w), p) for w, p in LEAVES)["testgen"].format_help()
    assert "40" not in text.split("exit codes:")[1].split("example:")[0]
    proc = run_cli("testgen", EXAMPLES / "lucent" / "accumulator_modes.lus", "--depth", "1",
                   "--per-path", "1", "--out", tmp_path / "out", timeout=120)
    assert proc.returncode == 0, proc.stderr
