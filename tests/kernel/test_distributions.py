"""Entry points and versions read without ``importlib.metadata`` (kernel/distributions.py) are
``importlib.metadata``'s: it is the oracle, here and on made-up ``sys.path`` layouts."""

from __future__ import annotations

import importlib.metadata
import os.path
import sys
import zipfile
from pathlib import Path

import pytest

from kinduct.kernel import distributions


def theirs(group: str) -> list[tuple[str, str]]:
    return [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group=group)]


def ours(group: str) -> list[tuple[str, str]]:
    return [(ep.name, ep.value) for ep in distributions.entry_points(group)]


def their_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


@pytest.mark.parametrize("group", ["kinduct", "console_scripts", "pytest11", "no.such.group"])
def test_the_installed_entry_points_are_importlib_metadatas(group):
    assert ours(group) == theirs(group)
    if group == "kinduct":
        assert ("lucent", "kinduct.frontends.lucent.plugin") in ours(group)


@pytest.mark.parametrize("name", ["kinduct", "rich", "z3-solver", "Z3_Solver", "no-such-dist"])
def test_the_installed_versions_are_importlib_metadatas(name):
    assert distributions.version(name) == their_version(name)


def write_dist(folder: Path, entry_points: str | None, version: str = "1.0",
               metadata: str = "METADATA") -> None:
    folder.mkdir(parents=True)
    (folder / metadata).write_text(f"Metadata-Version: 2.1\nName: x\nVersion: {version}\n\nbody\n")
    if entry_points is not None:
        (folder / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def made_up_path(tmp_path, monkeypatch):
    """Two directories on ``sys.path`` (and a missing one) whose distributions hide each other."""
    a, b = tmp_path / "a", tmp_path / "b"
    write_dist(a / "foo-1.0.dist-info", "# a comment\n\n[g]\nx = m1\n  y=m2:obj.attr  \n[h]\nx = other\n")
    write_dist(b / "foo-2.0.dist-info", "[g]\nx = hidden\n", "2.0")  # hidden by a's foo
    write_dist(a / "Bar_Baz.egg-info", "[g]\nz = m4 [extra]\n", "3.0", "PKG-INFO")
    write_dist(a / "quiet-1.0.dist-info", None)  # no entry points: still hides b's
    write_dist(b / "quiet-2.0.dist-info", "[g]\nq = hidden\n")
    write_dist(b / "late-0.1.dist-info", "[g]\nlate = m5\n", "0.1")
    monkeypatch.setattr(sys, "path", [str(a), str(tmp_path / "missing"), str(b)])
    return tmp_path


def test_a_made_up_path_reads_as_importlib_metadata_reads_it(made_up_path):
    assert ours("g") == theirs("g")
    assert sorted(ours("g")) == [("late", "m5"), ("x", "m1"), ("y", "m2:obj.attr"), ("z", "m4 [extra]")]
    assert ours("h") == theirs("h") == [("x", "other")]
    for name in ("foo", "FOO", "bar-baz", "bar.baz", "quiet", "late", "absent"):
        assert distributions.version(name) == their_version(name), name
    assert distributions.version("foo") == "1.0" and distributions.version("bar_baz") == "3.0"


def test_a_zip_on_the_path_is_left_to_importlib_metadata(made_up_path):
    archive = made_up_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 9.9\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[g]\nzipped = m6\n")
    sys.path.insert(0, str(archive))
    assert ("zipped", "m6") in ours("g")
    assert ours("g") == theirs("g")
    assert distributions.version("zipped") == "9.9"


def test_an_entry_point_loads_the_object_it_names():
    assert distributions.EntryPoint("j", "os.path:join").load() is os.path.join
    assert distributions.EntryPoint("p", "os.path").load() is os.path
    with pytest.raises(ValueError):
        distributions.EntryPoint("bad", "not a module!").load()
