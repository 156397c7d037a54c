"""Reading VMT-LIB files with PySMT's SMT-LIB parser.

VMT is the transition-system format of nuXmv, ic3ia and Pono: a state variable ``x`` is tied to
its next copy by ``(! x :next x')``; ``:init``, ``:trans`` and ``:invar-property N`` annotate
formulas.  Declared symbols that are neither current nor next state are inputs.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from pysmt.environment import Environment
from pysmt.exceptions import PysmtException, PysmtSyntaxError
from pysmt.smtlib.parser import SmtLibParser

from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.frontend import read_source
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem

_PROPERTY_RE = re.compile(r":invar-property\s+(\d+)")
_UNSUPPORTED = (":live-property", ":invar-constraint")


def _locate(text: str, pattern: re.Pattern[str], key: str) -> tuple[int, int] | None:
    for match in pattern.finditer(text):
        if match.group(1) == key:
            line = text.count("\n", 0, match.start()) + 1
            col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
            return line, col
    return None


def read_vmt(path: Path) -> TransitionSystem:
    text = read_source(path)
    return parse_vmt(text, str(path))


def parse_vmt(text: str, filename: str = "<vmt>") -> TransitionSystem:
    env = Environment()
    parser = SmtLibParser(environment=env)
    try:
        script = parser.get_script(io.StringIO(text))
    except PysmtSyntaxError as exc:
        line, col = exc.pos_info if exc.pos_info else (None, None)
        raise InputError.at(f"malformed VMT: {exc.message}", filename, text, line, col) from None
    except Exception as exc:  # PySMT signals bad input with many exception types
        unknown = _first_undeclared(text)
        if unknown is not None:
            name, line, col = unknown
            raise InputError.at(f"malformed VMT: unknown symbol '{name}'", filename, text, line,
                                col) from None
        raise InputError(f"malformed VMT: {exc}", SourceLocation(filename)) from None
    for tag in _UNSUPPORTED:
        if tag in text:
            idx = text.index(tag)
            line = text.count("\n", 0, idx) + 1
            col = idx - (text.rfind("\n", 0, idx) + 1) + 1
            raise InputError.at(f"unsupported: {tag} annotations", filename, text, line, col)

    ann = script.annotations
    builder = SystemBuilder(Path(filename).stem, env=env)
    mgr = env.formula_manager
    nexts = set()
    for cur in sorted(ann.all_annotated_formulae("next"), key=lambda f: f.symbol_name()):
        if not cur.is_symbol():
            raise InputError(f"malformed VMT: :next annotates a non-symbol {cur}",
                             SourceLocation(filename))
        (next_name,) = tuple(ann.annotations(cur)["next"])
        nxt = mgr.get_symbol(next_name) if _has_symbol(mgr, next_name) else \
            mgr.Symbol(next_name, cur.symbol_type())
        if nxt.symbol_type() != cur.symbol_type():
            raise InputError(f"malformed VMT: {cur} and its next {nxt} differ in type",
                             SourceLocation(filename))
        builder.add_state(cur, nxt)
        nexts.add(nxt)
    states = set(builder._states)
    declared = [cmd.args[0] for cmd in script.commands if cmd.name == "declare-fun"]
    for sym in declared:
        if sym not in states and sym not in nexts:
            if not sym.symbol_type().is_function_type():
                builder.add_input(sym)
    inits = ann.all_annotated_formulae("init")
    transs = ann.all_annotated_formulae("trans")
    for f in inits:
        builder.add_init(f)
    for f in transs:
        builder.add_trans(f)
    props = sorted(ann.all_annotated_formulae("invar-property"),
                   key=lambda f: int(next(iter(ann.annotations(f)["invar-property"]))))
    for f in props:
        idx = next(iter(ann.annotations(f)["invar-property"]))
        where = _locate(text, _PROPERTY_RE, idx)
        loc = SourceLocation(filename, *where) if where else SourceLocation(filename)
        builder.add_property(Property(f"P{idx}", f, location=loc, source="PropAnnot"))
    if not props:
        raise InputError(f"{filename}: no :invar-property in this VMT file")
    for cmd in script.commands:
        if cmd.name == "assert" and not cmd.args[0].is_true():
            builder.add_assumption(cmd.args[0])
    return builder.build()


_TOKEN = re.compile(r"\|[^|]*\||;[^\n]*|[()]|[^\s()]+")
_BUILTINS = frozenset("""
and or not => = < <= > >= + - * / ite let ! true false Int Real Bool declare-fun define-fun
declare-const define-const assert set-info set-logic set-option declare-sort define-sort
check-sat exit to_real to_int is_int abs div mod distinct xor Array select store BitVec _
push pop get-model get-value
""".split())


def _first_undeclared(text: str) -> tuple[str, int, int] | None:
    """PySMT reports an unknown symbol as an AttributeError deep inside; find it ourselves."""
    declared: set[str] = set()
    tokens = [(m.group(0), m.start()) for m in _TOKEN.finditer(text)]
    for i, (tok, _) in enumerate(tokens):
        if tok in ("declare-fun", "define-fun", "declare-const", "define-const") and i + 1 < len(tokens):
            declared.add(tokens[i + 1][0].strip("|"))
        if tok == "let":  # (let ((name term) ...) body): bound names are declared too
            j = i + 2
            while j + 1 < len(tokens) and tokens[j][0] == "(":
                declared.add(tokens[j + 1][0].strip("|"))
                depth = 0
                while j < len(tokens):
                    depth += tokens[j][0] == "("
                    depth -= tokens[j][0] == ")"
                    j += 1
                    if depth == 0:
                        break
    after_keyword = False
    for tok, start in tokens:
        skip = after_keyword
        after_keyword = tok.startswith(":")
        if skip or tok in "()" or tok.startswith((";", ":", "#")) or tok in _BUILTINS:
            continue
        if re.fullmatch(r"-?\d+(\.\d+)?", tok) or tok.startswith("bv"):
            continue
        if tok.strip("|") not in declared:
            line = text.count("\n", 0, start) + 1
            col = start - (text.rfind("\n", 0, start) + 1) + 1
            return tok.strip("|"), line, col
    return None


def _has_symbol(mgr, name: str) -> bool:
    try:
        mgr.get_symbol(name)
        return True
    except (KeyError, ValueError, PysmtException):
        return False
