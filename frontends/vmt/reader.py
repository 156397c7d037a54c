"""Reading VMT-LIB files with PySMT's SMT-LIB parser.

VMT is the transition-system format of nuXmv, ic3ia and Pono: a state variable ``x`` is tied to
its next copy by ``(! x :next x')``; ``:init``, ``:trans`` and ``:invar-property N`` annotate
formulas.  Declared symbols that are neither current nor next state are inputs.

Every problem is an :class:`~kinduct.kernel.errors.InputError` at ``file:line:col``: syntax
errors where the tokens stop making sense, type errors and unknown symbols at the command they
are in (tokens come from :mod:`kinduct.frontends.vmt.lexer`, which also bounds nesting depth and
literal sizes), and the model checks made after parsing: ``:next`` on a non-symbol, a variable
with two next copies or two variables sharing one, a next copy of another type, property
indices that are not numerals or appear twice, and unsupported annotations.
"""

from __future__ import annotations

import re
from pathlib import Path

from pysmt.environment import Environment
from pysmt.exceptions import PysmtSyntaxError, UnknownSmtLibCommandError
from pysmt.smtlib.parser import SmtLibParser
from pysmt.smtlib.script import SmtLibScript

from kinduct.frontends.vmt.lexer import Keyword, Tokens
from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.frontend import gc_paused, read_source
from kinduct.kernel.system import Property, SystemBuilder, TransitionSystem

_UNSUPPORTED = (":live-property", ":invar-constraint")


def read_vmt(path: Path) -> TransitionSystem:
    text = read_source(path)
    return parse_vmt(text, str(path))


@gc_paused()
def _parse_script(text: str, filename: str, env: Environment) -> tuple[SmtLibScript, Tokens]:
    parser = SmtLibParser(environment=env)
    parser._reset()  # what get_script does first; we feed our own token stream
    tokens = Tokens(text, filename)
    script = SmtLibScript()
    try:
        for cmd in parser.get_command(tokens):
            script.add_command(cmd)
    except InputError:
        raise
    except PysmtSyntaxError as exc:
        if _message(exc).startswith("Typing error"):  # a type error in a command: its start
            raise tokens.error(f"malformed VMT: {_message(exc)}", tokens.command_start) from None
        line, col = exc.pos_info if exc.pos_info else tokens.pos_info
        raise InputError.at(f"malformed VMT: {_message(exc)}", filename, text, line, col) from None
    except Exception as exc:  # PySMT signals bad input with many exception types
        unknown = None if isinstance(exc, UnknownSmtLibCommandError) else \
            _first_undeclared(text[: tokens.end])
        if unknown is not None:
            name, line, col = unknown
            shown = name.encode("unicode_escape").decode("ascii")
            raise InputError.at(f"malformed VMT: unknown symbol '{shown}'", filename, text, line,
                                col) from None
        if tokens.depth == 0 or _message(exc).startswith("Typing error"):
            # A type error in a command: point at its start.
            raise tokens.error(f"malformed VMT: {_message(exc)}", tokens.command_start) from None
        raise tokens.error(f"malformed VMT: {_message(exc)}") from None
    if tokens.depth > 0:
        raise tokens.error("malformed VMT: unexpected end of input, a ')' is missing",
                           len(text.rstrip()))
    script.annotations = parser.cache.annotations
    return script, tokens


def _message(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc).strip().splitlines()
    first = text[0] if text else ""
    if isinstance(exc, UnknownSmtLibCommandError):
        return f"unknown command '{first}'"
    if isinstance(exc, AttributeError) and "'NoneType'" in first or isinstance(exc, KeyError):
        return f"unknown symbol {first}" if isinstance(exc, KeyError) else "unknown symbol"
    return first.replace("Typyng", "Typing") or type(exc).__name__


def _at(tokens: Tokens, kw: Keyword, message: str, on_value: bool = True) -> InputError:
    line, col = (kw.value_line, kw.value_column) if on_value else (kw.line, kw.column)
    return InputError.at(message, tokens.filename, tokens.text, line, col)


@gc_paused()
def parse_vmt(text: str, filename: str = "<vmt>") -> TransitionSystem:
    env = Environment()
    script, tokens = _parse_script(text, filename, env)
    keywords = tokens.keywords
    for kw in keywords:
        if kw.name in _UNSUPPORTED:
            raise _at(tokens, kw, f"unsupported: {kw.name} annotations", on_value=False)

    ann = script.annotations
    builder = SystemBuilder(Path(filename).stem, env=env)
    mgr = env.formula_manager
    next_kws: dict[str, Keyword] = {}
    for kw in keywords:
        if kw.name == ":next":
            if kw.value is None:
                raise _at(tokens, kw, ":next needs the name of the next-state copy")
            next_kws.setdefault(kw.value, kw)
    nexts: dict = {}
    for cur in sorted(ann.all_annotated_formulae("next"), key=str):
        names = sorted(ann.annotations(cur)["next"])
        kw = next_kws.get(names[0])
        if not cur.is_symbol():
            raise _at(tokens, kw, f"malformed VMT: :next annotates `{cur}`, not a variable")
        if len(names) > 1:
            raise _at(tokens, next_kws.get(names[1], kw),
                      f"malformed VMT: {cur} has two next-state copies ({names[0]}, {names[1]})")
        nxt = _symbol(mgr, names[0], cur.symbol_type())
        if nxt.symbol_type() != cur.symbol_type():
            raise _at(tokens, kw, f"malformed VMT: {cur} is {cur.symbol_type()} but its next "
                                  f"copy {nxt} is {nxt.symbol_type()}")
        if nxt in nexts:
            raise _at(tokens, kw, f"malformed VMT: {nxt} is the next copy of both {nexts[nxt]} "
                                  f"and {cur}")
        if nxt == cur:
            raise _at(tokens, kw, f"malformed VMT: {cur} is its own next copy")
        builder.add_state(cur, nxt)
        nexts[nxt] = cur
    states = set(builder._states)
    for cur in states:
        if cur in nexts:
            kw = next_kws.get(cur.symbol_name())
            raise _at(tokens, kw, f"malformed VMT: {cur} is both a state variable and the next "
                                  f"copy of {nexts[cur]}")
    declared = [cmd.args[0] for cmd in script.commands if cmd.name == "declare-fun"]
    for sym in declared:
        if sym not in states and sym not in nexts:
            if not sym.symbol_type().is_function_type():
                builder.add_input(sym)
    for f in ann.all_annotated_formulae("init"):
        builder.add_init(f)
    for f in ann.all_annotated_formulae("trans"):
        builder.add_trans(f)
    for p in _properties(ann, keywords, tokens):
        builder.add_property(p)
    for cmd in script.commands:
        if cmd.name == "assert" and not cmd.args[0].is_true():
            builder.add_assumption(cmd.args[0])
    return builder.build()


def _properties(ann, keywords: list[Keyword], tokens: Tokens) -> list[Property]:
    """``:invar-property N`` formulas in index order; indices are numerals, each used once."""
    where: dict[int, Keyword] = {}
    for kw in keywords:
        if kw.name != ":invar-property":
            continue
        if kw.value is None or not kw.value.isdigit():
            raise _at(tokens, kw, "malformed VMT: the index of :invar-property must be a numeral")
        idx = int(kw.value)
        if idx in where:
            first = where[idx]
            raise _at(tokens, kw, f"malformed VMT: property index {idx} is used twice (first at "
                                  f"line {first.value_line})")
        where[idx] = kw
    props = []
    for f in ann.all_annotated_formulae("invar-property"):
        values = sorted(ann.annotations(f)["invar-property"], key=int)
        for value in values:
            kw = where[int(value)]
            if not f.get_type().is_bool_type():
                raise _at(tokens, kw, f"malformed VMT: property {value} is not a Boolean formula")
            loc = SourceLocation(tokens.filename, kw.value_line, kw.value_column)
            props.append(Property(f"P{value}", f, location=loc, source="PropAnnot"))
    if not props:
        end = tokens.text.rstrip()
        tokens_end = tokens.error("no :invar-property in this VMT file (nothing to check)",
                                  len(end))
        raise tokens_end
    return sorted(props, key=lambda p: int(p.name[1:]))


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


def _symbol(mgr, name: str, typ):
    try:
        return mgr.get_symbol(name)
    except Exception:  # PySMT raises different errors for unknown names across versions
        return mgr.Symbol(name, typ)
