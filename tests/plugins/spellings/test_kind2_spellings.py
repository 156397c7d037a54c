"""Kind 2's command-line spellings, translated before kinduct's parser sees them."""

from __future__ import annotations

import pytest

from kinduct.kernel.cli import build_parser, command_line
from kinduct.kernel.errors import UsageError
from kinduct.plugins.spellings.kind2 import rewrite


def test_enable_becomes_one_engine_list_that_wins_over_engine():
    argv = ["--engine", "ic3", "-json", "--enable", "BMC", "--enable=ind", "--enable", "IND2", "m.lus"]
    assert rewrite(argv) == ["--engine", "ic3", "--json", "m.lus", "--engine", "bmc,kind"]


def test_renamed_options_keep_their_values():
    assert rewrite(["--lus_main", "Top", "--smt_solver=Z3"]) == ["--main", "Top", "--solver=Z3"]


@pytest.mark.parametrize("argv, message", [(["--enable", "FOO"], "unknown Kind 2 engine 'FOO'"),
                                           (["--enable"], "expected an engine name")])
def test_bad_enable_is_a_usage_error(argv, message):
    with pytest.raises(UsageError, match=message):
        rewrite(argv)


def test_a_kind2_command_line_parses_as_kinduct_check():
    parser = build_parser()
    argv = ["m.lus", "-json", "--enable", "BMC", "--enable", "IND", "--timeout", "0",
            "--lus_main", "N", "--modular", "true", "--compositional"]
    args = parser.parse_args(command_line(argv, parser))
    assert (args.file, args.json, tuple(args.engine), args.timeout, args.main) == \
        ("m.lus", True, ("bmc", "kind"), None, "N")
    assert args.modular is True and args.compositional is True
