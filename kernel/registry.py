"""The plugin manager and lookups of frontends, engines and backends by name."""

from __future__ import annotations

import functools
from pathlib import Path

import pluggy

from kinduct.kernel import hookspecs
from kinduct.kernel.backend import Backend
from kinduct.kernel.distributions import entry_points
from kinduct.kernel.engine import Engine
from kinduct.kernel.errors import InputError, SolverUnavailable, UsageError
from kinduct.kernel.frontend import Frontend

#: Entry points that failed to import: name -> one-line reason (shown by ``kinduct plugins``).
BROKEN: dict[str, str] = {}


@functools.cache
def plugin_manager() -> pluggy.PluginManager:
    """Every plugin, kinduct's own included, is loaded from the ``kinduct`` entry points
    (read by :mod:`kinduct.kernel.distributions`, as ``importlib.metadata`` reads them).

    A plugin that fails to import is recorded in :data:`BROKEN` and skipped, so one broken
    third-party package cannot take the whole tool down.
    """
    pm = pluggy.PluginManager("kinduct")
    pm.add_hookspecs(hookspecs)
    for ep in sorted(entry_points("kinduct"), key=lambda e: e.name):
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        try:
            module = ep.load()
        except Exception as exc:  # report, never crash
            BROKEN[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        pm.register(module, name=ep.name)
    return pm


def _collect(results: list[list]) -> list:
    return [item for batch in results for item in (batch or [])]


@functools.cache
def frontends() -> dict[str, Frontend]:
    return {f.name: f for f in _collect(plugin_manager().hook.kinduct_register_frontends())}


@functools.cache
def engines() -> dict[str, Engine]:
    return {e.name: e for e in _collect(plugin_manager().hook.kinduct_register_engines())}


@functools.cache
def backends() -> dict[str, Backend]:
    return {b.name: b for b in _collect(plugin_manager().hook.kinduct_register_backends())}


def _choose(kind: str, name: str, table: dict) -> object:
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise UsageError(f"unknown {kind} '{name}' (known: {known})")
    return table[name]


def engine(name: str) -> Engine:
    return _choose("engine", name, engines())  # type: ignore[return-value]


def backend(name: str) -> Backend:
    chosen: Backend = _choose("solver", name, backends())  # type: ignore[assignment]
    if not chosen.available():
        raise SolverUnavailable(f"solver '{name}' is not available here: {chosen.unavailable_reason()}")
    return chosen


def _smt_backends(excluding: str = "") -> list[Backend]:
    """The available SMT backends, preferred first."""
    found = [b for b in backends().values() if b.smt and b.name != excluding and b.available()]
    return sorted(found, key=lambda b: (b.preference, b.name))


def default_solver() -> str:
    """The preferred available SMT backend (``--solver``'s default)."""
    found = _smt_backends()
    if not found:
        raise SolverUnavailable("no SMT backend is available (`kinduct plugins` lists them)")
    return found[0].name


def other_solver(name: str) -> str:
    """The preferred available SMT backend other than ``name`` (``name`` if there is none)."""
    found = _smt_backends(excluding=name)
    return found[0].name if found else name


def frontend(name: str) -> Frontend:
    return _choose("frontend", name, frontends())  # type: ignore[return-value]


def frontend_for(path: Path, name: str | None = None) -> Frontend:
    if name:
        return frontend(name)
    for f in frontends().values():
        if f.claims(path):
            return f
    exts = ", ".join(sorted(e for f in frontends().values() for e in f.extensions))
    raise InputError(f"{path}: no frontend reads '{path.suffix or path.name}' files "
                     f"(known extensions: {exts}); choose one with --frontend")
