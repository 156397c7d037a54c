"""Kind 2's command-line spellings, translated to kinduct's before argparse sees them.

Accepted: ``-json``; ``--enable BMC`` (repeatable; see :data:`ENGINE_NAMES`); ``--lus_main N``;
``--smt_solver Z3``; ``--modular true``, ``--compositional false``; ``--timeout 0`` (no limit);
and ``kinduct FILE ...`` for ``kinduct check FILE ...``.  Options with a kinduct spelling are
declared as aliases on the ``check`` parser; only what argparse cannot express lives here.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

#: Kind 2's engine names (``--enable``) and the kinduct engine that does the same job.
ENGINE_NAMES = {
    "BMC": "bmc",
    "IND": "kind",
    "IND2": "kind",
    "IC3": "ic3",
    "IC3QE": "ic3",
    "IC3IA": "ic3",
    "INVGEN": "invgen",
    "INVGENOS": "invgen",
    "INVGENINT": "invgen",
    "INVGENINTOS": "invgen",
    "INVGENREAL": "invgen",
    "INVGENREALOS": "invgen",
}

#: Kind 2's single-dash spellings.
SINGLE_DASH = {"-json": "--json"}

#: Boolean options that Kind 2 spells ``--opt true`` and kinduct also takes as bare flags.
BOOL_OPTIONS = {"--compositional", "--modular"}

_BOOL_WORDS = {"true", "false", "on", "off", "yes", "no", "1", "0"}

#: Options of the top-level parser that take no value (they may precede the command).
GLOBAL_FLAGS = {"--debug", "-h", "--help", "--version"}


def parse_bool(text: str) -> bool:
    """Kind 2's Boolean option values: ``true``/``false`` (also ``on``/``off``, ``1``/``0``)."""
    lowered = text.strip().lower()
    if lowered in ("true", "on", "yes", "1"):
        return True
    if lowered in ("false", "off", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


def kind2_argv(argv: Sequence[str], commands: set[str]) -> list[str]:
    """``argv`` with Kind 2's spellings replaced by kinduct's, and ``check`` inserted when the
    first word is not a command (``kinduct FILE`` = ``kinduct check FILE``)."""
    out = _bool_values([SINGLE_DASH.get(arg, arg) for arg in argv])
    first = next((i for i, arg in enumerate(out) if arg not in GLOBAL_FLAGS), None)
    if first is None:
        return out
    word = out[first]
    if word in commands:
        return out
    if word.startswith("-") and not any(a in commands for a in out):
        # Kind 2 style: options before the file (``kinduct -json --enable BMC FILE``)
        return [*out[:first], "check", *out[first:]]
    if not word.startswith("-") and ("." in word or "/" in word or os.path.exists(word)):
        return [*out[:first], "check", *out[first:]]
    return out  # argparse names the unknown command


def _bool_values(argv: list[str]) -> list[str]:
    """A Boolean option's value joined to it (``--modular=true``); a bare flag means true, so
    ``--compositional FILE`` never reads the file name as the option's value."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in BOOL_OPTIONS:
            following = argv[i + 1] if i + 1 < len(argv) else None
            if following is not None and following.strip().lower() in _BOOL_WORDS:
                out.append(f"{arg}={following}")
                i += 2
                continue
            out.append(f"{arg}=true")
        else:
            out.append(arg)
        i += 1
    return out
