"""Packaging glue: map api/, kernel/, frontends/, plugins/ into the ``kinduct.*`` namespace.

pyproject.toml holds all metadata; this file only enumerates every subpackage under the three
source folders so that new packages need no edit here.
"""

from pathlib import Path

from setuptools import setup

ROOTS = {"api": "kinduct", "kernel": "kinduct.kernel", "frontends": "kinduct.frontends",
         "plugins": "kinduct.plugins"}


def _packages() -> list[str]:
    found = []
    for folder, dotted in ROOTS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            rel = init.parent.relative_to(folder).parts
            found.append(".".join((dotted, *rel)))
    return found


setup(packages=_packages())
