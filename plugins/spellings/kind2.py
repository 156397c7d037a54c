"""Kind 2's command-line spellings, translated to kinduct's before argparse sees them
(the ``kinduct_rewrite_argv`` hook), so a Kind 2 user's command line works unchanged.

Accepted: ``-json``, ``-xml``, ``-ijson``; ``--enable BMC`` (repeatable; see :data:`ENGINE_NAMES`; the enabled
engines replace ``--engine``); ``--enable CONTRACTCK`` (``--realizability``, with
``--check_environment`` and ``--check_contract_is_sat``); ``--lus_main N``;
``--smt_solver Z3``; ``--testgen true`` (``kinduct testgen``: ``--testgen_len K``,
``--output_dir D``, ``--testgen_graph_only``) and ``--enable contract_monitor
--monitor_trace_file F`` (``kinduct monitor``); ``--disable X``; the output options of
:func:`output_options`.  ``--modular true``, ``--timeout 0`` and
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

#: Kind 2's engines that ``--disable`` turns off in kinduct (the variants, IND2, INVGENOS, ...,
#: have no engine of their own: disabling one of them leaves kinduct's engine running).
DISABLED_NAMES = {"BMC": "bmc", "IND": "kind", "IC3": "ic3", "INVGEN": "invgen"}

#: Kind 2's modules that are not engines, accepted by ``--disable`` and ignored.
OTHER_MODULES = {"IC3QE", "IC3IA", "IND2", "INVGENOS", "INVGENINT", "INVGENINTOS", "INVGENMACH",
                 "INVGENMACHOS", "INVGENREAL", "INVGENREALOS", "C2I", "INTERPRETER",
                 "CONTRACT_MONITOR", "MCS", "CONTRACTCK"}

#: Kind 2's verbosity flags: kinduct's output does not change with them.
VERBOSITY = {"-v", "-vv", "-s", "-q", "-qq"}

#: Kind 2's output options kinduct accepts and ignores: counterexamples are always printed
#: (``--print_cex``); ``--color false`` is passed on to rich as ``NO_COLOR``.
IGNORED_BOOLS = ("--print_cex", "--log_invs")

#: Kind 2's engine that is a kinduct option: the realizability check (plugins/realizability).
CONTRACT_CHECK = "CONTRACTCK"

#: Kind 2's option names and kinduct's.
RENAMED = {"-json": "--json", "-xml": "--xml", "-ijson": "--ijson", "--lus_main": "--main",
           "--smt_solver": "--solver",
           "--check_environment": "--check-environment",
           "--check_contract_is_sat": "--check-contract-is-sat"}


#: Kind 2's test generation and contract monitor options, as ``kinduct testgen`` / ``monitor``'s.
TESTGEN = {"--testgen_len": "--depth", "--output_dir": "--out"}
MONITOR = {"--monitor_trace_file": "--trace"}
#: Kind 2's interpreter options, as ``kinduct simulate``'s.
INTERPRETER = {"--interpreter_input_file": "--input", "--interpreter_steps": "--steps"}
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


def _enabled(argv: list[str], module: str) -> tuple[bool, list[str]]:
    """Whether ``--enable MODULE`` is in ``argv`` (any case), and ``argv`` without it."""
    for i, arg in enumerate(argv):
        if arg == "--enable" and i + 1 < len(argv) and argv[i + 1].lower() == module:
            return True, argv[:i] + argv[i + 2:]
        if arg.lower() == f"--enable={module}":
            return True, argv[:i] + argv[i + 1:]
    return False, argv


def contract_tools(argv: list[str]) -> list[str]:
    """Kind 2's ``--testgen true`` (with ``--testgen_len K``, ``--output_dir D``,
    ``--testgen_graph_only``) as ``kinduct testgen``, its ``--enable contract_monitor
    --monitor_trace_file F`` as ``kinduct monitor``, its ``--enable interpreter
    --interpreter_input_file F [--interpreter_steps N]`` as ``kinduct simulate``; other
    command lines unchanged."""
    testgen, rest = _flag(argv, "--testgen")
    monitor, rest = _enabled(rest, "contract_monitor")
    interpreter, rest = _enabled(rest, "interpreter")
    if not testgen and not monitor and not interpreter:
        return rest if testgen is False else argv
    if bool(testgen) + monitor + interpreter > 1:
        raise UsageError("only one of --testgen, --enable contract_monitor and --enable "
                         "interpreter can be used")
    if interpreter:
        out = [INTERPRETER.get(a.partition("=")[0], a.partition("=")[0]) + a.partition("=")[1]
               + a.partition("=")[2] for a in rest]
        return ["simulate", *(out[1:] if out and out[0] == "check" else out)]
    renames = TESTGEN if testgen else MONITOR
    graph_only, rest = _flag(rest, "--testgen_graph_only") if testgen else (None, rest)
    out = [renames.get(a.partition("=")[0], a.partition("=")[0]) + a.partition("=")[1] + a.partition("=")[2]
           for a in rest]
    if out and out[0] == "check":
        out = out[1:]
    if testgen:  # Kind 2 explores the maximal abstraction: callees by their contracts
        return ["testgen", *out, "--compositional", *(["--graph-only"] if graph_only else [])]
    # Kind 2's monitor exits 0 whatever it finds (a later --exit_code_mode wins)
    return ["monitor", "--exit-code-mode", "only_errors", *out]


def output_options(argv: list[str]) -> list[str]:
    """Kind 2's output and analysis options: ``--only_parse``, ``--print_invs``,
    ``--exit_code_mode``, ``--certif`` (:func:`certificate_options`), ``--timeout_analysis``
    (``--timeout`` when none is given: kinduct's limit is one for the whole run), the
    verbosity flags, ``--color``, ``--print_cex`` and
    ``--log_invs`` (accepted, no effect)."""
    argv = certificate_options(argv)
    only_parse, argv = _flag(argv, "--only_parse")
    print_invs, argv = _flag(argv, "--print_invs")
    color, argv = _flag(argv, "--color")
    for name in IGNORED_BOOLS:
        _, argv = _flag(argv, name)
    if color is False:
        import os

        os.environ["NO_COLOR"] = "1"  # what rich reads
    has_timeout = any(a.partition("=")[0] == "--timeout" for a in argv)
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg in VERBOSITY:
            i += 1
            continue
        if name in ("--timeout_analysis", "--exit_code_mode"):
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name}: expected a value")
                i += 1
                value = argv[i]
            if name == "--exit_code_mode":
                out += ["--exit-code-mode", value]
            elif not has_timeout:
                out += ["--timeout", value]
        else:
            out.append(arg)
        i += 1
    return out + ["--only-parse"] * bool(only_parse) + ["--print-invariants"] * bool(print_invs)


def certificate_options(argv: list[str]) -> list[str]:
    """Kind 2's ``--certif true`` (with ``--output_dir D``, default ``FILE.out``) as
    ``--certificates [D]``; other command lines unchanged."""
    certif, rest = _flag(argv, "--certif")
    if not certif:
        return rest if certif is False else argv
    out: list[str] = []
    directory: list[str] = []
    i = 0
    while i < len(rest):
        name, eq, value = rest[i].partition("=")
        if name == "--output_dir":
            if not eq:
                if i + 1 >= len(rest):
                    raise UsageError("--output_dir: expected a directory")
                i += 1
                value = rest[i]
            directory = [value]
        else:
            out.append(rest[i])
        i += 1
    return [*out, "--certificates", *directory]


def _without_disabled(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without its ``--disable X`` options, and the kinduct engines they name."""
    out: list[str] = []
    disabled: list[str] = []
    i = 0
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if name != "--disable":
            out.append(argv[i])
            i += 1
            continue
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError("--disable: expected an engine name")
            i += 1
            value = argv[i]
        engine = DISABLED_NAMES.get(value.upper())
        if engine is None and value.upper() not in OTHER_MODULES:
            raise UsageError(f"--disable: unknown Kind 2 module '{value}' (known: "
                             f"{', '.join(sorted([*DISABLED_NAMES, *OTHER_MODULES]))})")
        if engine is not None:
            disabled.append(engine)
        i += 1
    return out, disabled


def _engines_left(argv: list[str], enabled: list[str], disabled: list[str]) -> list[str]:
    """The engines a run uses after ``--disable``: the enabled ones (else those of
    ``--engine``, else the portfolio's) less the disabled ones."""
    from kinduct.kernel import registry

    chosen = list(enabled)
    if not chosen:
        chosen = ["portfolio"]
        for i, arg in enumerate(argv):
            name, eq, value = arg.partition("=")
            if name == "--engine":
                chosen = (value if eq else argv[i + 1] if i + 1 < len(argv) else "").split(",")
    expanded: list[str] = []
    for name in chosen:
        members = list(registry.engine(name).members) if name in registry.engines() else []
        for engine in members or [name]:
            if engine not in expanded:
                expanded.append(engine)
    left = [e for e in expanded if e not in disabled]
    if not left:
        raise UsageError("--disable: every engine is disabled")
    return left


def core_tools(argv: list[str]) -> list[str]:
    """Kind 2's ``--ivc true`` and ``--enable MCS`` as ``kinduct cores --ivc`` / ``--mcs``
    (Kind 2's ``--ivc_*``/``--mcs_*`` options are the command's own); others unchanged."""
    ivc, rest = _flag(argv, "--ivc")
    mcs = False
    for i, arg in enumerate(rest):
        if arg == "--enable" and i + 1 < len(rest) and rest[i + 1].upper() == "MCS":
            rest, mcs = rest[:i] + rest[i + 2:], True
            break
        if arg.upper() == "--ENABLE=MCS":
            rest, mcs = rest[:i] + rest[i + 1:], True
            break
    if not ivc and not mcs:
        return rest if ivc is False else argv
    lead = 0
    while lead < len(rest) and rest[lead] == "--debug":  # the global flag stays before it
        lead += 1
    tail = rest[lead + 1:] if lead < len(rest) and rest[lead] in ("check", "cores") else rest[lead:]
    return [*rest[:lead], "cores", *tail, *(["--ivc"] if ivc else []),
            *(["--mcs"] if mcs else [])]


def rewrite(argv: list[str]) -> list[str]:
    """``argv`` with Kind 2's spellings replaced by kinduct's; ``--enable`` values (less the
    ``--disable`` ones) become one ``--engine`` list at the end (so they win over an
    ``--engine`` given too)."""
    argv = core_tools(output_options(contract_tools(argv)))
    argv, disabled = _without_disabled(argv)
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
    if disabled:
        enabled = _engines_left(out, enabled, disabled)
    if enabled:
        out += ["--engine", ",".join(enabled)]
    return out


@hookimpl
def kinduct_rewrite_argv(argv: list[str]) -> list[str]:
    return rewrite(argv)


@hookimpl
def kinduct_add_check_options(parser: argparse.ArgumentParser) -> None:
    text = ("-json (--json), -xml (--xml), -ijson (--ijson), --enable ENGINE (repeatable: "
            + ", ".join(sorted(ENGINE_NAMES))
            + "; replaces --engine), --enable CONTRACTCK (--realizability), --lus_main NODE "
              "(--main), --smt_solver NAME (--solver), "
              "--modular true|false, --compositional true|false, --timeout 0 (no limit), "
              "--disable ENGINE, --timeout_analysis S (--timeout), --only_parse, "
              "--exit_code_mode MODE, --print_invs (--print-invariants), --certif true "
              "[--output_dir DIR] (--certificates); accepted with no "
              "effect: -v, -s, -q, -qq, --print_cex, --log_invs, --color (false: NO_COLOR)")
    parser.add_argument_group("Kind 2's spellings (also accepted)",
                              textwrap.fill(text, width=78, initial_indent="  ",
                                            subsequent_indent="  "))
