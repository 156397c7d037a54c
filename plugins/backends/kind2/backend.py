"""The external Kind 2 backend: hand the whole problem to a ``kind2`` binary.

The system is printed as one Kind 2 Lustre node (:mod:`kinduct.kernel.lustre_printer`), or a
Lucent ``.lus`` file is passed through as it is.  Kind 2 runs with ``-json``; its answers become
kinduct verdicts, and a counterexample becomes a :class:`Trace` keyed by the system's own
variable names, which is replayed on the system (and on the frontend's interpreter) before it
is believed, exactly as the kernel's runner does for its own engines.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pysmt.environment import Environment

from kinduct.kernel.backend import Backend, Solver
from kinduct.kernel.errors import InputError
from kinduct.kernel.lustre_printer import print_lustre
from kinduct.kernel.replay import replay_trace
from kinduct.kernel.runner import RunOptions, select_properties
from kinduct.kernel.system import Property, PropertyKind, TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict
from kinduct.plugins.backends.kind2.output import (
    answer_of,
    errors_of,
    parse_objects,
    property_objects,
    stream_table,
)
from kinduct.plugins.backends.kind2.traces import complete_trace, match_streams

#: Environment variable naming the binary (set by ``--kind2-path``); else ``kind2`` on PATH.
PATH_VARIABLE = "KINDUCT_KIND2"

#: kinduct engine -> Kind 2 modules for ``--enable``.  ``portfolio`` keeps Kind 2's defaults.
ENGINE_MODULES: dict[str, tuple[str, ...]] = {
    "bmc": ("BMC",),
    "kind": ("BMC", "IND"),
    "ic3": ("IC3",),
    "invgen": ("INVGEN", "INVGENOS"),
    "portfolio": (),
}

#: Seconds Kind 2 gets beyond its own ``--timeout`` to print its results before it is killed.
GRACE = 5.0


def enable_flags(engines: Sequence[str]) -> list[str]:
    """``--enable`` arguments for the chosen engines (none for ``portfolio``: Kind 2's
    defaults run its whole portfolio)."""
    modules: list[str] = []
    for name in engines:
        if name not in ENGINE_MODULES:
            known = ", ".join(ENGINE_MODULES)
            raise InputError(f"the kind2 backend has no engine '{name}' (known: {known})")
        if name == "portfolio":
            return []
        modules.extend(m for m in ENGINE_MODULES[name] if m not in modules)
    return [arg for m in modules for arg in ("--enable", m)]


def _normalise(name: str) -> str:
    return re.sub(r"\s+", "", name)


class Kind2Backend(Backend):
    name = "kind2"
    description = "external Kind 2 binary (checks whole systems, prints them as Lustre)"
    smt = False

    def binary(self) -> str | None:
        chosen = os.environ.get(PATH_VARIABLE)
        if chosen:
            path = Path(chosen)
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
            return shutil.which(chosen)
        return shutil.which("kind2")

    def available(self) -> bool:
        return self.binary() is not None

    def unavailable_reason(self) -> str:
        if self.available():
            return ""
        chosen = os.environ.get(PATH_VARIABLE)
        if chosen:
            return f"{chosen} is not an executable Kind 2 binary"
        return "no kind2 binary on PATH (or give --kind2-path)"

    def solver(self, env: Environment, logic: str | None = None) -> Solver:
        raise InputError("kind2 checks whole systems and offers no SMT solver to engines; "
                         "use it as --solver kind2 of `kinduct check`")

    # -- running Kind 2 -----------------------------------------------------------------------

    def check_system(self, system: TransitionSystem, opts: RunOptions,
                     start: float | None = None) -> list[Verdict]:
        start = time.monotonic() if start is None else start
        props = select_properties(system, opts.properties)
        if not props:
            return []
        flags = enable_flags(opts.engines)
        binary = self.binary()
        if binary is None:
            raise InputError(f"solver 'kind2' is not available here: {self.unavailable_reason()}")
        with tempfile.TemporaryDirectory(prefix="kinduct-kind2-") as tmp:
            source = self._input_file(system, props, Path(tmp))
            cmd = [binary, "-json", *flags]
            remaining = None
            if opts.timeout is not None:
                remaining = max(0.1, opts.timeout - (time.monotonic() - start))
                cmd += ["--timeout", f"{remaining:g}"]
            if opts.max_k is not None:
                cmd += ["--bmc_max", str(opts.max_k)]
            if source.main:
                cmd += ["--lus_main", source.main]
            cmd.append(str(source.path))
            code, out, err, killed = _run(cmd, None if remaining is None else remaining + GRACE)
        objects = parse_objects(out)
        return self._verdicts(system, props, source, objects, code, err, killed, opts, start)

    def _input_file(self, system: TransitionSystem, props: Sequence[Property], tmp: Path) -> _Source:
        src = system.metadata.get("source_path")
        if (system.metadata.get("frontend") == "lucent" and src and str(src).endswith(".lus")
                and system.metadata.get("kind2_compatible", True) and Path(src).is_file()):
            text = Path(src).read_text(errors="replace")
            wanted = str(system.metadata.get("lucent_main") or system.name)
            main = wanted if re.search(rf"\b(node|function)\s+{re.escape(wanted)}\b", text) else None
            return _Source(Path(src), main, None, None)
        program = print_lustre(system, props)
        path = tmp / f"{program.node}.lus"
        path.write_text(program.text)
        return _Source(path, None, program.variables, program.properties)

    def _verdicts(self, system: TransitionSystem, props: Sequence[Property], source: _Source,
                  objects: list[dict[str, Any]], code: int | None, err: str, killed: bool,
                  opts: RunOptions, start: float) -> list[Verdict]:
        by_name = {p.name: p for p in props}
        loose = {_normalise(p.name): p for p in props}
        found: dict[str, Verdict] = {}
        for obj in property_objects(objects):
            name = str(obj.get("name", ""))
            if source.properties is not None:
                prop = by_name.get(source.properties.get(name, ""))
            else:
                prop = by_name.get(name) or loose.get(_normalise(name))
            if prop is None or prop.name in found:
                continue
            found[prop.name] = self._verdict(system, prop, obj, source)
        problems = errors_of(objects)
        failed = code not in (0, 10, 20, 30, 40) and not killed
        results = []
        for prop in props:
            if prop.name in found:
                results.append(found[prop.name])
                continue
            if failed or (problems and not property_objects(objects)):
                detail = "; ".join(problems) or (err.strip().splitlines() or ["no output"])[-1]
                results.append(Verdict(prop.name, Answer.ERROR, engine="kind2", solver="kind2",
                                       runtime=time.monotonic() - start,
                                       message=f"kind2 failed (exit code {code}): {detail}"))
                continue
            results.append(Verdict(prop.name, Answer.UNKNOWN, engine="kind2", solver="kind2",
                                   runtime=time.monotonic() - start, timeout=killed or bool(
                                       opts.timeout and time.monotonic() - start >= opts.timeout),
                                   message="timeout" if killed else "Kind 2 did not decide it"))
        return results

    def _verdict(self, system: TransitionSystem, prop: Property, obj: dict[str, Any],
                 source: _Source) -> Verdict:
        answer = answer_of(obj)
        runtime_obj = obj.get("runtime") or {}
        engine = f"kind2/{(obj.get('answer') or {}).get('source', 'kind2')}"
        base = Verdict(prop.name, answer, engine=engine, solver="kind2",
                       runtime=float(runtime_obj.get("value", 0.0) or 0.0),
                       timeout=bool(runtime_obj.get("timeout", False)))
        if prop.kind is PropertyKind.REACHABLE and source.properties is not None:
            # the printed node checks the obligation ``not target`` as an invariant
            answer = {Answer.FALSIFIABLE: Answer.REACHABLE, Answer.VALID: Answer.UNREACHABLE}.get(
                answer, answer)
        if answer in (Answer.VALID, Answer.UNREACHABLE):
            return base.evolve(answer=answer, k=obj.get("k"))
        if answer is Answer.UNKNOWN:
            return base.evolve(k=obj.get("trueFor"), message="Kind 2 answered unknown")
        blocks = obj.get("counterExample") or obj.get("witness")
        steps, streams, block = stream_table(blocks)
        if steps == 0:
            return base.evolve(answer=Answer.ERROR,
                               message="Kind 2 reported a counterexample without steps")
        known = match_streams(system, streams, steps, source.variables, block)
        trace, problem = complete_trace(system, known, prop)
        if trace is None:
            return base.evolve(answer=Answer.ERROR,
                               message=f"Kind 2's counterexample does not fit the system: {problem}")
        problem = replay_trace(system, trace, prop)
        if problem is None and system.replay is not None:
            problem = system.replay(trace, prop)
        if problem is not None:
            return base.evolve(answer=Answer.ERROR,
                               message=f"Kind 2's counterexample does not replay: {problem}")
        return base.evolve(answer=answer, trace=trace, k=len(trace) - 1)


class _Source:
    """The file given to Kind 2 and, when kinduct printed it, how its names map back."""

    def __init__(self, path: Path, main: str | None, variables: dict[str, str] | None,
                 properties: dict[str, str] | None) -> None:
        self.path = path
        self.main = main
        self.variables = variables
        self.properties = properties


def _run(cmd: list[str], timeout: float | None) -> tuple[int | None, str, str, bool]:
    """Run Kind 2 in its own process group; on timeout kill the group (Kind 2 forks solver
    processes) and keep what it printed so far."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as exc:
        raise InputError(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    try:
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
