"""The installed distributions' entry points and versions, read without ``importlib.metadata``.

Importing ``importlib.metadata`` (it brings ``email``, ``zipfile``, ``csv``, ...) and scanning
with it costs about 0.02 s, a tenth of an easy model's whole run, only to list the plugins and
print the version.  This module reads the same files the same way for the common layout: every
``sys.path`` entry a directory (or missing), ``*.dist-info`` / ``*.egg-info`` folders in them,
no importer but Python's own that finds distributions.  Where anything differs (a zip or egg
on the path, another finder of distributions, a line of ``entry_points.txt`` it cannot read)
it asks ``importlib.metadata`` instead, so the answer is always that module's.

The order is ``importlib.metadata``'s (Python 3.11 and later): ``sys.path`` in order; in each
directory the metadata folders grouped by normalised name, in the order the directory lists
them; a name's first distribution hides every later one of the same name.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from functools import reduce
from typing import NamedTuple

_SUFFIXES = (".dist-info", ".egg-info")


class _Unusual(Exception):
    """A layout this module does not read itself (``importlib.metadata`` then answers)."""


class EntryPoint(NamedTuple):
    """One ``name = value`` line of a group of ``entry_points.txt``."""

    name: str
    value: str

    def load(self) -> object:
        """The module (or the object in it) the value names, ``module[:attr.attr]``, imported
        as ``importlib.metadata.EntryPoint.load`` does."""
        match = re.match(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$",
                         self.value)
        if match is None:
            raise ValueError(f"entry point {self.name} = {self.value}: not module[:attribute]")
        module = importlib.import_module(match.group("module"))
        return reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _only_standard_finders() -> bool:
    """No importer but Python's path finder says where distributions are."""
    from importlib.machinery import PathFinder

    return all(finder is PathFinder or not hasattr(finder, "find_distributions")
               for finder in sys.meta_path)


def _folders() -> Iterator[str]:
    """Every distribution's metadata folder, in ``importlib.metadata``'s order, the hidden ones
    (a name seen before) left out."""
    if not _only_standard_finders():
        raise _Unusual
    seen: set[str] = set()
    for entry in sys.path:
        root = entry or "."
        if not isinstance(entry, str) or os.path.isfile(root) or root.lower().endswith(".egg"):
            raise _Unusual
        try:
            children = os.listdir(root)
        except OSError:
            continue
        grouped: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if not low.endswith(_SUFFIXES):
                continue
            if not child.endswith(_SUFFIXES):  # importlib names it from its METADATA then
                raise _Unusual
            grouped.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        for name, folders in grouped.items():
            if name not in seen:
                seen.add(name)
                yield os.path.join(root, folders[0])


def _read(folder: str, name: str) -> str | None:
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def _group(text: str, group: str) -> list[EntryPoint]:
    """The entry points of ``group`` in an ``entry_points.txt``, as ``importlib.metadata``
    reads it (``#`` comments, ``[section]`` headers, ``name = value``)."""
    found = []
    section = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            raise _Unusual
        name, value = (part.strip() for part in line.split("=", 1))
        if section == group:
            found.append(EntryPoint(name, value))
    return found


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of every installed distribution, in
    ``importlib.metadata.entry_points(group=group)``'s order."""
    try:
        found: list[EntryPoint] = []
        for folder in _folders():
            text = _read(folder, "entry_points.txt")
            if text is not None:
                found += _group(text, group)
        return found
    except _Unusual:
        import importlib.metadata

        return [EntryPoint(ep.name, ep.value)
                for ep in importlib.metadata.entry_points(group=group)]


def version(distribution: str) -> str | None:
    """The version of the first installed distribution of that name (None: none is), as
    ``importlib.metadata.version`` finds it."""
    wanted = _normalize(distribution)
    try:
        for folder in _folders():
            if _normalize(os.path.basename(folder).rpartition(".")[0].partition("-")[0]) != wanted:
                continue
            text = _read(folder, "METADATA") or _read(folder, "PKG-INFO") or ""
            for line in text.splitlines():
                if not line.strip():
                    break  # the headers end at the first empty line
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
            return None
        return None
    except _Unusual:
        import importlib.metadata

        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return None
