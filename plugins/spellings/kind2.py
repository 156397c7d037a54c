"""Kind 2's command-line spellings, translated to kinduct's before argparse sees them
(the ``kinduct_rewrite_argv`` hook), so a Kind 2 user's command line works unchanged.

Accepted: ``-json``; ``--enable BMC`` (repeatable; see :data:`ENGINE_NAMES`; the enabled
engines replace ``--engine``); ``--enable CONTRACTCK`` (``--realizability``, with
``--check_environment`` and ``--check_contract_is_sat``); ``--lus_main N``;
``--smt_solver Z3``.  ``--modular true``, ``--timeout 0`` and ``kinduct FILE`` are kinduct's
own spellings too (see :mod:`kinduct.kernel.cli`).
"""

from __future__ import annotations

import argparse
import textwrap

import pluggy

from kinduct.kernel.errors import UsageError

hookimpl = pluggy.HookimplMarker("kinduct")

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

#: Kind 2's engine that is a kinduct option: the realizability check (plugins/realizability).
CONTRACT_CHECK = "CONTRACTCK"

#: Kind 2's option names and kinduct's.
RENAMED = {"-json": "--json", "--lus_main": "--main", "--smt_solver": "--solver",
           "--check_environment": "--check-environment",
           "--check_contract_is_sat": "--check-contract-is-sat"}


def rewrite(argv: list[str]) -> list[str]:
    """``argv`` with Kind 2's spellings replaced by kinduct's; ``--enable`` values become one
    ``--engine`` list at the end (so they win over an ``--engine`` given too)."""
    out: list[str] = []
    enabled: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name == "--enable":
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError("--enable: expected an engine name")
                i += 1
                value = argv[i]
            if value.upper() == CONTRACT_CHECK:
                if "--realizability" not in out:
                    out.append("--realizability")
                i += 1
                continue
            engine = ENGINE_NAMES.get(value.upper())
            if engine is None:
                raise UsageError(f"--enable: unknown Kind 2 engine '{value}' "
                                 f"(known: {', '.join(sorted([*ENGINE_NAMES, CONTRACT_CHECK]))})")
            if engine not in enabled:
                enabled.append(engine)
        elif name in RENAMED:
            out.append(RENAMED[name] + (f"={value}" if eq else ""))
        else:
            out.append(arg)
        i += 1
    if enabled:
        out += ["--engine", ",".join(enabled)]
    return out


@hookimpl
def kinduct_rewrite_argv(argv: list[str]) -> list[str]:
    return rewrite(argv)


@hookimpl
def kinduct_add_check_options(parser: argparse.ArgumentParser) -> None:
    text = ("-json (--json), --enable ENGINE (repeatable: " + ", ".join(sorted(ENGINE_NAMES))
            + "; replaces --engine), --enable CONTRACTCK (--realizability), --lus_main NODE "
              "(--main), --smt_solver NAME (--solver), "
              "--modular true|false, --compositional true|false, --timeout 0 (no limit)")
    parser.add_argument_group("Kind 2's spellings (also accepted)",
                              textwrap.fill(text, width=78, initial_indent="  ",
                                            subsequent_indent="  "))
