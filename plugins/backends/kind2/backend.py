"""The external Kind 2 backend: an :class:`ExternalChecker` that hands a whole system to a
``kind2`` binary.

A Lucent file is passed to Kind 2 as written (``--lus_main`` names the analysed node); any other
system is printed as one Kind 2 Lustre node (:mod:`kinduct.plugins.backends.kind2.lustre`).
Kind 2 runs with ``-json``; its answers become verdicts about each property's obligation, and a
counterexample becomes a :class:`~kinduct.kernel.verdict.Trace` over the system's variables
(:mod:`~kinduct.plugins.backends.kind2.traces`).  Replay, reachability mapping, certification
and the verdicts of undecided properties are the runner's job, as for its own engines.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kinduct.kernel.backend import ExternalChecker, ExternalRequest
from kinduct.kernel.errors import InputError, UsageError
from kinduct.kernel.system import Property, PropertyKind, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

#: kinduct engine -> Kind 2 modules for ``--enable``.  ``portfolio`` keeps Kind 2's defaults.
ENGINE_MODULES: dict[str, tuple[str, ...]] = {
    "bmc": ("BMC",),
    "kind": ("BMC", "IND"),
    "ic3": ("IC3",),
    "invgen": ("INVGEN", "INVGENOS"),
    "portfolio": (),
}

#: ``--kind2-solver`` -> (Kind 2's ``--smt_solver`` value, its binary flag, binary names).
RUN_TIME_SOLVERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "z3": ("Z3", "--z3_bin", ("z3",)),
    "cvc5": ("CVC5", "--cvc5_bin", ("cvc5",)),
    "yices": ("Yices2", "--yices2_bin", ("yices-smt2",)),
}

#: Frontends whose source files Kind 2 reads as written.
NATIVE_FRONTENDS = frozenset({"lucent"})

#: Seconds Kind 2 gets beyond its own ``--timeout`` to print its results before it is killed:
#: less than the watchdog's grace (``kernel.watchdog.GRACE``), so that the run still reports
#: what Kind 2 printed, with the rest unknown, before the watchdog ends it.
GRACE = 0.6

#: Where ``make kind2`` puts the binary, relative to the working directory or the project.
BUILT = Path(".kind2") / "bin" / "kind2"
PROJECT = Path(__file__).resolve().parents[3]


def enable_flags(engines: Sequence[str]) -> list[str]:
    """``--enable`` arguments for the chosen engines (none for ``portfolio``: Kind 2's
    defaults run its whole portfolio)."""
    modules: list[str] = []
    for name in engines:
        if name not in ENGINE_MODULES:
            known = ", ".join(ENGINE_MODULES)
            raise UsageError(f"the kind2 backend has no engine '{name}' (known: {known})")
        if name == "portfolio":
            return []
        modules.extend(m for m in ENGINE_MODULES[name] if m not in modules)
    return [arg for m in modules for arg in ("--enable", m)]


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_program(names: Sequence[str]) -> str | None:
    """A program on PATH or beside this Python (a wheel's ``bin``)."""
    for name in names:
        found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
        if found:
            return found
    return None


@attrs.frozen
class Kind2Options:
    """``--kind2-path`` and ``--kind2-solver`` (None: look for the binary; Kind 2's default)."""

    path: str | None = None
    solver: str | None = None


@attrs.frozen
class _Source:
    """The file given to Kind 2 and, when kinduct printed it, how its names map back."""

    path: Path
    main: str | None
    variables: dict[str, str] | None = None
    properties: dict[str, str] | None = None

    @property
    def native(self) -> bool:
        return self.variables is None


class Kind2Backend(ExternalChecker):
    name = "kind2"
    description = "external Kind 2 binary (checks whole systems; Lucent files as written)"

    def __init__(self) -> None:
        self.options = Kind2Options()

    def configure(self, options: Mapping[str, object]) -> None:
        path = options.get("kind2_path")
        solver = options.get("kind2_solver")
        path = str(path) if path else None
        self.options = Kind2Options(str(Path(path).absolute()) if path and os.sep in path else path,
                                    str(solver) if solver else None)

    def binary(self) -> str | None:
        """``--kind2-path``, else ``kind2`` on PATH, else ``.kind2/bin/kind2`` (``make kind2``)
        in the working directory or the project."""
        if self.options.path:
            path = Path(self.options.path)
            return str(path) if _executable(path) else shutil.which(self.options.path)
        found = shutil.which("kind2")
        if found:
            return found
        for base in (Path.cwd(), PROJECT):
            if _executable(base / BUILT):
                return str(base / BUILT)
        return None

    def available(self) -> bool:
        return self.binary() is not None

    def unavailable_reason(self) -> str:
        if self.available():
            return ""
        if self.options.path:
            return f"{self.options.path} is not an executable Kind 2 binary"
        return "no kind2 binary on PATH or in .kind2/bin (run `make kind2`, or give --kind2-path)"

    def validate_engines(self, engines: Sequence[str]) -> None:
        enable_flags(engines)

    def solver_flags(self) -> list[str]:
        """Kind 2's run-time SMT solver (``--kind2-solver``), which must be installed."""
        chosen = self.options.solver
        if chosen is None:
            return []
        if chosen not in RUN_TIME_SOLVERS:
            raise InputError(f"unknown --kind2-solver '{chosen}' (known: {', '.join(RUN_TIME_SOLVERS)})")
        value, flag, names = RUN_TIME_SOLVERS[chosen]
        program = find_program(names)
        if program is None:
            raise InputError(f"--kind2-solver {chosen}: no {' or '.join(names)} binary on PATH")
        return ["--smt_solver", value, flag, program]

    # -- running Kind 2 -----------------------------------------------------------------------

    def check_system(self, system: TransitionSystem, properties: Sequence[Property],
                     request: ExternalRequest) -> list[Verdict]:
        binary = self.binary()
        if binary is None:
            raise InputError(f"solver 'kind2' is not available here: {self.unavailable_reason()}")
        cmd = [binary, "-json", *enable_flags(request.engines), *self.solver_flags()]
        remaining = None
        if request.deadline is not None:
            remaining = max(0.1, request.deadline - time.monotonic())
            cmd += ["--timeout", f"{remaining:.3f}"]
        if request.max_k is not None:
            cmd += ["--unroll_max", str(request.max_k)]
        import tempfile  # this module is imported on every run (registration): not for it

        from kinduct.plugins.backends.kind2.output import input_error, parse_objects

        with tempfile.TemporaryDirectory(prefix="kinduct-kind2-") as tmp:
            source = self._input_file(system, properties, Path(tmp))
            if source.main:
                cmd += ["--lus_main", source.main]
            cmd.append(str(source.path))
            code, out, err, killed = _run(cmd, None if remaining is None else remaining + GRACE)
        objects = parse_objects(out)
        if source.native:
            error = input_error(objects)
            if error is not None:  # Kind 2 rejects the user's file: a located input error
                raise error
        return self._verdicts(system, properties, source, objects, code, err, killed,
                              request.deadline)

    def _input_file(self, system: TransitionSystem, props: Sequence[Property], tmp: Path) -> _Source:
        src = system.origin.path
        if system.origin.frontend in NATIVE_FRONTENDS and src and Path(src).is_file():
            return _Source(Path(src), system.origin.top or system.name)
        from kinduct.plugins.backends.kind2.lustre import print_lustre  # PySMT: on first use

        program = print_lustre(system, props)
        path = tmp / f"{program.node}.lus"
        path.write_text(program.text)
        return _Source(path, None, program.variables, program.properties)

    def _verdicts(self, system: TransitionSystem, props: Sequence[Property], source: _Source,
                  objects: list[dict[str, Any]], code: int | None, err: str,
                  killed: bool, deadline: float | None = None) -> list[Verdict]:
        from kinduct.plugins.backends.kind2.output import (
            answer_of,
            match_properties,
            problems_of,
            property_objects,
        )

        chosen = match_properties(objects, props, source.properties)
        # no property at all: Kind 2 stopped before its analysis, so its errors say why
        problems = [] if property_objects(objects) else problems_of(objects)
        failed = code not in (0, 10, 20, 30, 40) and not killed
        results = []
        for prop in props:
            obj = chosen.get(prop.name)
            if obj is not None and deadline is not None and time.monotonic() >= deadline \
                    and answer_of(obj) is Answer.FALSIFIABLE:
                # its counterexample is completed and replayed before it counts: no time left
                results.append(Verdict(prop.name, Answer.UNKNOWN, engine="kind2", timeout=True,
                                       message="timeout: Kind 2 falsified it, but no time was "
                                               "left to replay its counterexample"))
            elif obj is not None:
                results.append(self._verdict(system, prop, obj, source))
            elif failed or problems:
                detail = "; ".join(problems) or (err.strip().splitlines() or ["no output"])[-1]
                what = "Kind 2 failed" if source.native else "Kind 2 rejected the Lustre kinduct printed"
                results.append(Verdict(prop.name, Answer.ERROR, engine="kind2",
                                       message=f"{what} (exit code {code}): {detail}"))
            else:
                results.append(Verdict(prop.name, Answer.UNKNOWN, engine="kind2", timeout=killed,
                                       message="timeout" if killed else
                                       "Kind 2 reported no verdict for it"))
        return results

    def _verdict(self, system: TransitionSystem, prop: Property, obj: dict[str, Any],
                 source: _Source) -> Verdict:
        """A verdict about ``prop``'s obligation, as an engine reports it."""
        from kinduct.plugins.backends.kind2.output import answer_of, stream_table

        answer = answer_of(obj)
        module = (obj.get("answer") or {}).get("source")
        engine = f"kind2/{module}" if module else "kind2"
        base = Verdict(prop.name, Answer.UNKNOWN, engine=engine)
        if answer is Answer.UNKNOWN:
            steps = obj.get("trueFor", obj.get("unreachableFor"))
            return base.evolve(k=steps, message="Kind 2 answered unknown" + (
                f" (no violation in its first {steps} steps)" if steps is not None else ""))
        reach = (Answer.REACHABLE, Answer.UNREACHABLE)
        expected = reach if source.native and prop.kind is PropertyKind.REACHABLE else (
            Answer.FALSIFIABLE, Answer.VALID)
        if answer not in expected:
            return base.evolve(answer=Answer.ERROR, message=(
                f"Kind 2 answered {answer.value} for a {prop.kind.value} property"))
        if answer in (Answer.VALID, Answer.UNREACHABLE):
            return base.evolve(answer=Answer.VALID, k=obj.get("k"))
        blocks = obj.get("counterExample") or obj.get("witness")
        table = stream_table(blocks)
        from kinduct.plugins.backends.kind2.traces import trace_of  # PySMT: on first use

        trace, note = trace_of(system, prop, table, source.variables)
        if trace is None:
            return base.evolve(answer=Answer.ERROR,
                               message=f"Kind 2's counterexample cannot be mapped: {note}")
        return base.evolve(answer=Answer.FALSIFIABLE, trace=trace, k=len(trace) - 1, message=note)


def _run(cmd: list[str], timeout: float | None) -> tuple[int | None, str, str, bool]:
    """Run Kind 2 in its own process group; on timeout kill the group (Kind 2 forks solver
    processes) and keep what it printed so far."""
    import signal
    import subprocess

    from kinduct.kernel import watchdog

    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as exc:
        raise InputError(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    try:
        with watchdog.track(proc.pid):
            out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a solver outside the group holds the pipes
            out, err = _text(exc.stdout), _text(exc.stderr)
        return proc.returncode, out, err, True
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data
