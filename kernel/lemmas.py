"""Formulas as SMT-LIB text, so that invariants cross process boundaries and certificates can
be re-checked by another solver."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from pysmt.fnode import FNode
from pysmt.smtlib.parser import SmtLibParser
from pysmt.smtlib.printers import to_smtlib as _print_smtlib

from kinduct.kernel.system import TransitionSystem


def to_smtlib(formula: FNode) -> str:
    return _print_smtlib(formula, daggify=False)


def _declarations(system: TransitionSystem, extra: Iterable[FNode] = ()) -> str:
    lines = []
    for var in (*system.current_vars, *system.next_vars, *system.rigid_symbols(), *extra):
        lines.append(f"(declare-fun {_quote(var.symbol_name())} {var.symbol_type().as_smtlib(True)})")
    return "\n".join(lines)


def _quote(name: str) -> str:
    simple = all(c.isalnum() or c in "~!@$%^&*_-+=<>.?/" for c in name) and not name[0].isdigit()
    return name if simple else f"|{name}|"


def parse_lemmas(system: TransitionSystem, texts: Sequence[str]) -> list[FNode]:
    """Parse SMT-LIB terms over the system's variables back into its environment."""
    if not texts:
        return []
    script = _declarations(system) + "\n" + "\n".join(f"(assert {t})" for t in texts)
    parser = SmtLibParser(environment=system.env)
    parsed = parser.get_script(io.StringIO(script))
    return [cmd.args[0] for cmd in parsed.commands if cmd.name == "assert"]
