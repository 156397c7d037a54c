"""The toy frontend: one wrapping counter per file and a claim that it stays below a bound.

It shows everything a frontend plugin needs: a :class:`Frontend` subclass, clear input errors
(``InputError.at`` gives file:line:col and a caret), a transition system built with the kernel's
builder, and the ``kinduct_register_frontends`` hook.
"""

from __future__ import annotations

import re
from pathlib import Path

from pysmt.typing import INT

from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.frontend import Frontend, LoadOptions
from kinduct.kernel.hookspecs import hookimpl
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem

_COUNTER = re.compile(r"counter\s+start=(-?\d+)\s+step=(\d+)\s+wrap=(-?\d+)\s*$")
_CLAIM = re.compile(r"claim\s+below\s+(-?\d+)\s*$")


class ToyFrontend(Frontend):
    name = "toy"
    extensions = (".toy",)
    description = "wrapping counters (template plugin)"

    def load(self, path: Path, options: LoadOptions) -> TransitionSystem:
        text = path.read_text()
        counter = claim = None
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            col = raw.index(line[0]) + 1
            if m := _COUNTER.match(line):
                counter = tuple(int(g) for g in m.groups())
            elif m := _CLAIM.match(line):
                claim = (int(m.group(1)), lineno, col)
            else:
                raise InputError.at("expected 'counter start=N step=N wrap=N' or 'claim below N'",
                                    path, text, lineno, col)
        if counter is None or claim is None:
            raise InputError("a .toy file needs one counter line and one claim line",
                             SourceLocation(str(path)))
        start, step, wrap = counter
        builder = SystemBuilder(path.stem)
        mgr = builder.mgr
        x, x_next = builder.state("x", INT)
        builder.add_init(mgr.Equals(x, mgr.Int(start)))
        builder.add_trans(mgr.Equals(x_next, mgr.Ite(mgr.GE(x, mgr.Int(wrap)), mgr.Int(start),
                                                     mgr.Plus(x, mgr.Int(step)))))
        bound, lineno, col = claim
        builder.add_property(Property(f"below_{bound}", mgr.LT(x, mgr.Int(bound)),
                                      location=SourceLocation(str(path), lineno, col)))
        return builder.build()


@hookimpl
def kinduct_register_frontends() -> list[Frontend]:
    return [ToyFrontend()]
