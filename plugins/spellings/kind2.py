"""Kind 2's command-line spellings, translated to kinduct's before argparse sees them
(the ``kinduct_rewrite_argv`` hook), so a Kind 2 user's command line works unchanged.

Accepted: ``-json``; ``--enable BMC`` (repeatable; see :data:`ENGINE_NAMES`; the enabled
engines replace ``--engine``); ``--enable CONTRACTCK`` (``--realizability``, with
``--check_environment`` and ``--check_contract_is_sat``); ``--lus_main N``;
``--smt_solver Z3``; ``--testgen true`` (``kinduct testgen``: ``--testgen_len K``,
``--output_dir D``, ``--testgen_graph_only``) and ``--enable contract_monitor
--monitor_trace_file F`` (``kinduct monitor``).  ``--modular true``, ``--timeout 0`` and
``kinduct FILE`` are kinduct's own spellings too (see :mod:`kinduct.kernel.cli`).
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


#: Kind 2's test generation and contract monitor options, as ``kinduct testgen`` / ``monitor``'s.
TESTGEN = {"--testgen_len": "--depth", "--output_dir": "--out"}
MONITOR = {"--monitor_trace_file": "--trace"}
_TRUE, _FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")


def _flag(argv: list[str], name: str) -> tuple[bool | None, list[str]]:
    """Whether Boolean option ``name`` is given as true (None: not given), and ``argv``
    without it (``--name``, ``--name true``, ``--name=false``)."""
    out: list[str] = []
    found: bool | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        key, eq, value = arg.partition("=")
        if key == name:
            if eq:
                found = value.lower() in _TRUE
            elif i + 1 < len(argv) and argv[i + 1].lower() in _TRUE + _FALSE:
                i += 1
                found = argv[i].lower() in _TRUE
            else:
                found = True
        else:
            out.append(arg)
        i += 1
    return found, out


def contract_tools(argv: list[str]) -> list[str]:
    """Kind 2's ``--testgen true`` (with ``--testgen_len K``, ``--output_dir D``,
    ``--testgen_graph_only``) as ``kinduct testgen``, its ``--enable contract_monitor
    --monitor_trace_file F`` as ``kinduct monitor``; other command lines unchanged."""
    testgen, rest = _flag(argv, "--testgen")
    monitor = False
    for i, arg in enumerate(rest):
        if arg == "--enable" and i + 1 < len(rest) and rest[i + 1].lower() == "contract_monitor":
            rest = rest[:i] + rest[i + 2:]
            monitor = True
            break
        if arg.lower() == "--enable=contract_monitor":
            rest = rest[:i] + rest[i + 1:]
            monitor = True
            break
    if not testgen and not monitor:
        return rest if testgen is False else argv
    if testgen and monitor:
        raise UsageError("--testgen and --enable contract_monitor cannot be used together")
    renames = TESTGEN if testgen else MONITOR
    graph_only, rest = _flag(rest, "--testgen_graph_only") if testgen else (None, rest)
    out = [renames.get(a.partition("=")[0], a.partition("=")[0]) + a.partition("=")[1] + a.partition("=")[2]
           for a in rest]
    if out and out[0] == "check":
        out = out[1:]
    return ["testgen" if testgen else "monitor", *out, *(["--graph-only"] if graph_only else [])]


def rewrite(argv: list[str]) -> list[str]:
    """``argv`` with Kind 2's spellings replaced by kinduct's; ``--enable`` values become one
    ``--engine`` list at the end (so they win over an ``--engine`` given too)."""
    argv = contract_tools(argv)
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
