"""Done-when 3 (first half): every benchmark model parses, type-checks and translates.

The full sweep over the 768 FMCAD08 models is ``slow``; a fixed sample runs by default.
Verdicts against the manifests are measured by ``benchmarks/lucent_suite.py``.
"""

from __future__ import annotations

import csv

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from tests.conftest import BENCH

LUSTRE = BENCH / "lustre"

def _files(suite: str) -> list[str]:
    manifest = LUSTRE / suite / "manifest.csv"
    if not manifest.exists():
        return []
    with open(manifest) as fh:
        return [r["file"] for r in csv.DictReader(fh)]


def _load(suite: str, name: str) -> None:
    path = LUSTRE / suite / name
    systems = load_systems(path, LoadOptions())
    assert systems and any(s.properties for s in systems)


FMCAD = _files("fmcad08")
SAMPLE = FMCAD[::64]


@pytest.mark.parametrize("name", SAMPLE)
def test_fmcad08_sample_loads(name):
    _load("fmcad08", name)


@pytest.mark.parametrize("name", _files("kind2-regression"))
def test_kind2_regression_loads(name):
    _load("kind2-regression", name)


@pytest.mark.slow
def test_all_fmcad08_models_load():
    assert len(FMCAD) == 768
    failures = []
    for name in FMCAD:
        try:
            _load("fmcad08", name)
        except Exception as exc:  # collect them all for one readable failure
            failures.append(f"{name}: {exc}")
    assert not failures, "\n".join(failures[:20])
