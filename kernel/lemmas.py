"""Formulas as SMT-LIB text, so that invariants cross process boundaries and certificates can
be re-checked by another solver."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from pysmt.fnode import FNode
from pysmt.smtlib.parser import SmtLibParser
from pysmt.smtlib.printers import to_smtlib as _print_smtlib
from pysmt.typing import PySMTType

from kinduct.kernel.system import TransitionSystem


def to_smtlib(formula: FNode) -> str:
    return _print_smtlib(formula, daggify=False)


def _declarations(system: TransitionSystem, extra: Iterable[FNode] = ()) -> str:
    symbols = list(dict.fromkeys((*system.current_vars, *system.next_vars,
                                  *system.rigid_symbols(), *extra)))
    lines = sort_declarations(symbols)
    for var in symbols:
        lines.append(f"(declare-fun {_quote(var.symbol_name())} {var.symbol_type().as_smtlib(True)})")
    return "\n".join(lines)


def sort_declarations(symbols: Iterable[FNode]) -> list[str]:
    """``declare-sort`` commands of the uninterpreted sorts ``symbols``' types use (in array
    and function types too), each once."""
    seen: dict[str, int] = {}

    def visit(t: PySMTType) -> None:
        if t.is_custom_type():
            seen.setdefault(t.name, t.arity)
        for sub in getattr(t, "args", None) or ():
            visit(sub)
        if t.is_function_type():
            for sub in (*t.param_types, t.return_type):
                visit(sub)

    for symbol in symbols:
        visit(symbol.symbol_type())
    return [f"(declare-sort {_quote(name)} {arity})" for name, arity in seen.items()]


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
