"""What a benchmark suite is: model files and, from ``manifest.csv`` files, expected verdicts.

A suite is a folder (its ``manifest.csv`` lists the files and their verdicts; without one, every
file a registered frontend reads is taken) or a text file with one path per line (relative to
the text file; ``#`` starts a comment), whose verdicts come from a ``manifest.csv`` beside each
model.  A manifest has the columns ``file`` and ``expected``, and optionally
``properties_json``: a JSON list of ``{"prop": name, "verdict": v}`` for per-property verdicts
(Kind 2's regression suite).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import attrs

from kinduct.kernel import registry
from kinduct.kernel.errors import InputError

MANIFEST = "manifest.csv"


@attrs.frozen
class Model:
    """One model file of a suite: ``name`` is how rows and the CSV call it."""

    path: str
    name: str
    expected: str = ""
    expected_by_property: dict[str, str] = attrs.field(factory=dict)

    def expected_for(self, prop: str, n_props: int) -> str:
        """The verdict a property should get.  A file-level verdict speaks for a lone
        property, or for all of them when it is ``valid`` (every property holds)."""
        if prop in self.expected_by_property:
            return self.expected_by_property[prop]
        if self.expected_by_property:
            return ""
        if n_props <= 1 or self.expected == "valid":
            return self.expected
        return ""


def _read_manifest(path: Path) -> dict[str, tuple[str, dict[str, str]]]:
    out: dict[str, tuple[str, dict[str, str]]] = {}
    try:
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                name = (row.get("file") or "").strip()
                if not name:
                    continue
                per_prop: dict[str, str] = {}
                raw = (row.get("properties_json") or "").strip()
                if raw:
                    try:
                        per_prop = {str(p["prop"]): str(p["verdict"]).strip().lower()
                                    for p in json.loads(raw)}
                    except (ValueError, KeyError, TypeError):
                        per_prop = {}
                out[name] = ((row.get("expected") or "").strip().lower(), per_prop)
    except (OSError, csv.Error, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the manifest: {exc}") from None
    return out


class _Manifests:
    """Manifests read once per folder."""

    def __init__(self) -> None:
        self.cache: dict[Path, dict[str, tuple[str, dict[str, str]]]] = {}

    def lookup(self, model: Path) -> tuple[str, dict[str, str]]:
        """The nearest manifest that lists the model: beside it, or in a folder above that
        names it by its relative path (``success/x.lus`` in Kind 2's regression suite)."""
        model = model.resolve()
        for folder in model.parents:
            if folder not in self.cache:
                m = folder / MANIFEST
                self.cache[folder] = _read_manifest(m) if m.is_file() else {}
            entry = self.cache[folder].get(model.relative_to(folder).as_posix())
            if entry is not None:
                return entry
        return ("", {})


def _known_extensions() -> set[str]:
    return {e.lower() for f in registry.frontends().values() for e in f.extensions}


def load_suite(suite: str, limit: int | None = None) -> list[Model]:
    """The models of ``suite`` in a stable order."""
    root = Path(suite)
    if not root.exists():
        raise InputError(f"{suite}: no such suite (a folder or a text file of paths)")
    manifests = _Manifests()
    models: list[Model] = []
    if root.is_dir():
        manifest = root / MANIFEST
        if manifest.is_file():
            entries = _read_manifest(manifest)
            for name, (expected, per_prop) in entries.items():
                path = root / name
                if path.is_file():
                    models.append(Model(str(path.resolve()), name, expected, per_prop))
        else:
            exts = _known_extensions()
            for path in sorted(root.rglob("*")):
                if path.is_file() and path.suffix.lower() in exts:
                    expected, per_prop = manifests.lookup(path)
                    models.append(Model(str(path.resolve()), str(path.relative_to(root)),
                                        expected, per_prop))
    else:
        try:
            lines = root.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{suite}: cannot read the list of models: {exc}") from None
        for number, line in enumerate(lines, 1):
            entry = line.split("#", 1)[0].strip()
            if not entry:
                continue
            path = Path(entry) if Path(entry).is_absolute() else root.parent / entry
            if not path.is_file():
                raise InputError.at(f"no such model file '{entry}'", suite, "\n".join(lines),
                                    number, line.index(entry) + 1)
            expected, per_prop = manifests.lookup(path)
            models.append(Model(str(path.resolve()), entry, expected, per_prop))
    if not models:
        raise InputError(f"{suite}: the suite has no model files")
    return models[:limit] if limit else models
