"""Running a RASP program: statements execute eagerly on constants and build the lazy s-op graph.

Constants (numbers, strings, booleans, lists, dicts) are ordinary Python values and operations on
them happen at once, as in the REPL; as soon as an s-op is involved the result is a new graph
node.  So ``x if assume_bos else y`` with a constant condition picks one branch (no head is
spent on the other), which is what makes ``selector_width`` compile differently with and without
a BOS token (paper, Figure 9).

Name, arity and type errors are reported here with the location of the offending expression.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from lark import Token, Tree

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.builtins import install_builtins
from kinduct.frontends.rasp.nodes import Graph, Loc, Node, Scorer
from kinduct.frontends.rasp.syntax import parse
from kinduct.kernel.errors import InputError, SourceLocation
from kinduct.kernel.frontend import read_source

STDLIB = Path(__file__).with_name("stdlib.rasp")
RESERVED = {"tokens", "tokens_str", "tokens_int", "tokens_float", "tokens_bool", "tokens_asis",
            "indices", "True", "False"}
MAX_DEPTH = 200
MAX_STEPS = 200_000     # statements and calls; RASP programs are small, loops are over constants
MAX_DIGITS = 100        # digits of a number literal (Python converts at most 4300)


@dataclass
class Source:
    file: str
    text: str
    library: bool = False


class Scope:
    def __init__(self, parent: Scope | None = None) -> None:
        self.vars: dict[str, Any] = {}
        self.where: dict[str, Loc] = {}
        self.parent = parent

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        raise KeyError(name)

    def names(self) -> set[str]:
        out = set(self.vars)
        if self.parent is not None:
            out |= self.parent.names()
        return out


@dataclass(eq=False)
class Function:
    """A user-defined RASP function (a closure over its defining scope)."""

    name: str
    params: list[tuple[str, Tree | None]]
    body: list[Tree]
    ret: Tree
    scope: Scope
    source: Source

    def __repr__(self) -> str:
        return f"<function {self.name}>"


@dataclass(eq=False)
class Builtin:
    name: str
    fn: Callable[..., Any]
    params: tuple[str, ...]
    defaults: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<builtin {self.name}>"


@dataclass(frozen=True)
class OpArg:
    """A bare comparison operator passed to ``select``."""

    op: str


class Program:
    """A loaded program: its global names (on top of the standard library) and its sources."""

    def __init__(self, interp: Interpreter, scope: Scope, source: Source) -> None:
        self.interp = interp
        self.scope = scope
        self.source = source

    @property
    def file(self) -> str:
        return self.source.file

    def names(self) -> dict[str, Any]:
        return dict(self.scope.vars)

    def sop(self, name: str, selector_ok: bool = False) -> Node:
        """The s-op (or selector) called ``name``; a clear error otherwise."""
        try:
            value = self.scope.lookup(name)
        except KeyError:
            known = sorted(n for n, v in self.scope.vars.items() if isinstance(v, Node))
            raise InputError(f"{self.file}: no s-op named '{name}'"
                             + (f" (defined: {', '.join(known)})" if known else "")) from None
        if isinstance(value, Node) and (selector_ok or not value.is_selector):
            return value
        if isinstance(value, Node):
            raise self.error_at(f"'{name}' is a selector, not an s-op", self.where(name))
        if isinstance(value, (int, Fraction, str, bool)):
            return self.interp.graph.make("const", value=value)
        raise self.error_at(f"'{name}' (defined here) is a {type_name(value)}, not an s-op",
                            self.where(name))

    def where(self, name: str) -> Loc:
        """Where a global name was first assigned (for reports)."""
        return self.scope.where.get(name) or Loc(self.file, None, None)

    def error_at(self, message: str, loc: Loc | None) -> InputError:
        return self.interp.error(message, loc)


def type_name(v: Any) -> str:
    if isinstance(v, Scorer):
        return "scorer"
    if isinstance(v, Node):
        return "selector" if v.is_selector else "s-op"
    if isinstance(v, (Function, Builtin)):
        return "function"
    if isinstance(v, bool):
        return "boolean"
    if ops.is_number(v):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "list"
    if isinstance(v, dict):
        return "dict"
    return type(v).__name__


def freeze(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(freeze(k) for k in v)
    return v


class Interpreter:
    def __init__(self) -> None:
        self.graph = Graph()
        self.sources: dict[str, str] = {}
        self.user_sites: list[Loc] = []
        self.depth = 0
        self.steps = 0
        self.defining: list[str] = []  # the names the statement being run assigns
        self.base = Scope()
        install_builtins(self)
        self.library = Scope(self.base)
        self.run_file(STDLIB, self.library, library=True)

    # ----------------------------------------------------------------- errors and locations
    def error(self, message: str, loc: Loc | None) -> InputError:
        if loc is None:
            return InputError(message)
        return InputError.at(message, loc.file, self.sources.get(loc.file or ""), loc.line, loc.column)

    def loc(self, tree: Tree | Token, src: Source) -> Loc:
        if isinstance(tree, Token):
            return Loc(src.file, tree.line, tree.column)
        meta = tree.meta
        return Loc(src.file, getattr(meta, "line", None), getattr(meta, "column", None))

    def node_loc(self, loc: Loc, src: Source) -> Loc:
        """Nodes made inside library code are blamed on the user's call site."""
        if src.library and self.user_sites:
            return self.user_sites[-1]
        return loc

    # ----------------------------------------------------------------------------- running
    def run_file(self, path: Path, scope: Scope, library: bool = False) -> Source:
        text = read_source(path)
        return self.run_text(text, str(path), scope, library)

    def run_text(self, text: str, file: str, scope: Scope, library: bool = False) -> Source:
        self.sources[file] = text
        src = Source(file, text, library)
        tree = parse(text, file)
        try:
            self.exec_block(tree.children, scope, src)
        except RecursionError:
            raise InputError("the program nests too deeply to run",
                             SourceLocation(file, 1, 1)) from None
        return src

    def load(self, path: Path) -> Program:
        scope = Scope(self.library)
        src = self.run_file(path, scope)
        return Program(self, scope, src)

    def load_text(self, text: str, file: str = "<input>") -> Program:
        scope = Scope(self.library)
        src = self.run_text(text, file, scope)
        return Program(self, scope, src)

    def exec_block(self, stmts: list[Tree], scope: Scope, src: Source) -> None:
        for stmt in stmts:
            if isinstance(stmt, Tree):
                self.exec_stmt(stmt, scope, src)

    def exec_stmt(self, stmt: Tree, scope: Scope, src: Source) -> None:
        self.tick(stmt, src)
        kind = stmt.data
        if kind == "assign":
            names_tree, exprs_tree = stmt.children
            names = [str(t) for t in names_tree.children]
            saved, self.defining = self.defining, names  # for "used in its own definition"
            values = [self.eval(e, scope, src) for e in exprs_tree.children]
            self.defining = saved
            rank = 0 if src.library else (2 if scope.parent is self.library else 1)
            self.bind(names, values, scope, self.loc(stmt, src), rank)
        elif kind == "expr_stmt":
            self.eval(stmt.children[0], scope, src)
        elif kind == "funcdef":
            name_tok, params_tree, *rest = stmt.children
            params = []
            if params_tree is not None:
                for p in params_tree.children:
                    params.append((str(p.children[0]), p.children[1]))
            body, ret = rest[:-1], rest[-1]
            if str(name_tok) in RESERVED:
                raise self.error(f"cannot redefine reserved name '{name_tok}'", self.loc(name_tok, src))
            scope.vars[str(name_tok)] = Function(str(name_tok), params, body, ret, scope, src)
            scope.where.setdefault(str(name_tok), self.loc(stmt, src))
        elif kind == "forloop":
            names_tree, iterable, *body = stmt.children
            names = [str(t) for t in names_tree.children]
            seq = self.eval(iterable, scope, src)
            for item in self.iterate(seq, self.loc(iterable, src)):
                self.bind(names, [item], scope, self.loc(stmt, src))
                self.exec_block(body, scope, src)
        elif kind == "load":
            name = str(stmt.children[0])[1:-1]
            path = Path(src.file).parent / name
            if not path.exists():
                raise self.error(f"cannot load '{name}': no such file", self.loc(stmt, src))
            self.run_file(path, scope, library=src.library)
        else:  # pragma: no cover - the grammar has no other statements
            raise self.error(f"unexpected statement {kind}", self.loc(stmt, src))

    def tick(self, tree: Tree, src: Source) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise self.error(f"the program runs too long (more than {MAX_STEPS} statements and "
                             "calls); loops in RASP are over small constants", self.loc(tree, src))

    def bind(self, names: list[str], values: list[Any], scope: Scope, loc: Loc, rank: int = 1) -> None:
        if len(names) > 1 and len(values) == 1:
            value = values[0]
            if not isinstance(value, (list, tuple)) or len(value) != len(names):
                raise self.error(f"cannot unpack {type_name(value)} into {len(names)} names", loc)
            values = list(value)
        if len(names) != len(values):
            raise self.error(f"{len(names)} names but {len(values)} values", loc)
        for name, value in zip(names, values, strict=True):
            if name in RESERVED:
                raise self.error(f"cannot assign to reserved name '{name}'", loc)
            if isinstance(value, Node) and rank > value.name_rank and value.kind not in ("tokens", "indices"):
                value.name = name
                value.name_rank = rank
            scope.vars[name] = value
            scope.where.setdefault(name, loc)

    def iterate(self, seq: Any, loc: Loc) -> list[Any]:
        if isinstance(seq, (list, tuple, str)):
            return list(seq)
        if isinstance(seq, dict):
            return list(seq)
        raise self.error(f"can only loop over a list, string or dict, not a {type_name(seq)}", loc)

    # --------------------------------------------------------------------------- expressions
    def eval(self, tree: Tree | Token, scope: Scope, src: Source) -> Any:
        if isinstance(tree, Token):  # pragma: no cover - atoms are always wrapped
            raise self.error(f"unexpected token {tree}", self.loc(tree, src))
        method = getattr(self, "ev_" + tree.data, None)
        if method is None:
            return self.eval(tree.children[0], scope, src)
        return method(tree, scope, src)

    def ev_number(self, t: Tree, scope: Scope, src: Source) -> Any:
        text = str(t.children[0])
        if len(text) > MAX_DIGITS:
            raise self.error(f"number of {len(text)} digits (at most {MAX_DIGITS} are accepted)",
                             self.loc(t, src))
        return int(text) if "." not in text else ops.norm(Fraction(text))

    def ev_string(self, t: Tree, scope: Scope, src: Source) -> Any:
        return str(t.children[0])[1:-1]

    def ev_var(self, t: Tree, scope: Scope, src: Source) -> Any:
        name = str(t.children[0])
        try:
            return scope.lookup(name)
        except KeyError:
            close = difflib.get_close_matches(name, sorted(scope.names()), 1)
            own = (" (used in its own definition)" if name in self.defining
                   else f" (did you mean '{close[0]}'?)" if close else "")
            raise self.error(f"unknown name '{name}'{own}", self.loc(t, src)) from None

    def ev_list(self, t: Tree, scope: Scope, src: Source) -> Any:
        if t.children[0] is None:
            return []
        return [self.eval(e, scope, src) for e in t.children[0].children]

    def ev_dict(self, t: Tree, scope: Scope, src: Source) -> Any:
        out: dict[Any, Any] = {}
        if t.children[0] is not None:
            for pair in t.children[0].children:
                k = self.eval(pair.children[0], scope, src)
                self.check_const(k, "a dict key", self.loc(pair, src))
                out[freeze(k)] = self.eval(pair.children[1], scope, src)
        return out

    def _comprehension(self, names_tree: Tree, iterable: Tree, scope: Scope, src: Source):
        names = [str(n) for n in names_tree.children]
        seq = self.eval(iterable, scope, src)
        for item in self.iterate(seq, self.loc(iterable, src)):
            inner = Scope(scope)
            self.bind(names, [item], inner, self.loc(names_tree, src))
            yield inner

    def ev_listcomp(self, t: Tree, scope: Scope, src: Source) -> Any:
        elem, names_tree, iterable = t.children
        scopes = self._comprehension(names_tree, iterable, scope, src)
        return [self.eval(elem, inner, src) for inner in scopes]

    def ev_dictcomp(self, t: Tree, scope: Scope, src: Source) -> Any:
        k, v, names_tree, iterable = t.children
        out = {}
        for inner in self._comprehension(names_tree, iterable, scope, src):
            out[freeze(self.eval(k, inner, src))] = self.eval(v, inner, src)
        return out

    def check_const(self, v: Any, what: str, loc: Loc) -> None:
        if isinstance(v, Node):
            raise self.error(f"{what} must be a constant, not an {type_name(v)}", loc)

    def ev_index(self, t: Tree, scope: Scope, src: Source) -> Any:
        base = self.eval(t.children[0], scope, src)
        idx = self.eval(t.children[1], scope, src)
        loc = self.loc(t, src)
        if isinstance(base, Node) or isinstance(idx, Node):
            raise self.error("unsupported: indexing an s-op (use aggregate with a selector to move "
                             "values between positions)", loc)
        try:
            if isinstance(base, dict):
                return base[freeze(idx)]
            if isinstance(idx, bool) or not isinstance(idx, int):
                raise TypeError(f"index must be an integer, not a {type_name(idx)}")
            return base[idx]
        except (IndexError, KeyError):
            raise self.error(f"index {ops.show(idx)} out of range", loc) from None
        except TypeError as exc:
            raise self.error(f"cannot index a {type_name(base)}: {exc}", loc) from None

    def lift(self, v: Any, loc: Loc) -> Node:
        """A constant used where an s-op is expected becomes the s-op broadcasting it."""
        if isinstance(v, Node):
            return v
        if isinstance(v, (Function, Builtin, OpArg, Scorer)) or v is None:
            raise self.error(f"expected an s-op or a constant, got a {type_name(v)}", loc)
        return self.graph.make("const", value=freeze(v), loc=loc)

    def mapped(self, op: str, args: list[Any], loc: Loc, src: Source) -> Any:
        """Elementwise ``op``: eager on constants, a ``map`` node as soon as an s-op is involved."""
        for a in args:
            if isinstance(a, Node) and a.is_selector:
                raise self.error(f"'{op}' cannot take a selector (selectors only combine with "
                                 "and, or, not)", loc)
            if isinstance(a, (Function, Builtin)):
                raise self.error(f"'{op}' cannot take a function", loc)
            if isinstance(a, Scorer):
                raise self.error(f"'{op}' cannot take a scorer (a scorer is only select_best's "
                                 "second argument)", loc)
        if any(isinstance(a, Node) for a in args):
            nloc = self.node_loc(loc, src)
            return self.graph.make("map", op=op, args=tuple(self.lift(a, nloc) for a in args), loc=nloc)
        if op == "+" and all(isinstance(a, (list, tuple)) for a in args):
            return list(args[0]) + list(args[1])
        if op == "in":
            if not isinstance(args[1], (list, tuple, dict, str)):
                raise self.error(f"'in' needs a list, dict or string on its right, not a "
                                 f"{type_name(args[1])}", loc)
            args = [args[0], freeze(args[1])]
        try:
            return ops.apply(op, *args)
        except ops.RaspRuntimeError as exc:
            raise self.error(str(exc), loc) from None

    def ev_binop(self, t: Tree, scope: Scope, src: Source) -> Any:
        a = self.eval(t.children[0], scope, src)
        b = self.eval(t.children[2], scope, src)
        return self.mapped(str(t.children[1]), [a, b], self.loc(t, src), src)

    ev_compare = ev_binop

    def ev_pow(self, t: Tree, scope: Scope, src: Source) -> Any:
        a = self.eval(t.children[0], scope, src)
        b = self.eval(t.children[1], scope, src)
        return self.mapped("^", [a, b], self.loc(t, src), src)

    def ev_unop(self, t: Tree, scope: Scope, src: Source) -> Any:
        v = self.eval(t.children[1], scope, src)
        return self.mapped("neg" if str(t.children[0]) == "-" else "pos", [v], self.loc(t, src), src)

    def _logic(self, op: str, t: Tree, scope: Scope, src: Source) -> Any:
        a = self.eval(t.children[0], scope, src)
        b = self.eval(t.children[1], scope, src)
        loc = self.loc(t, src)
        sa = isinstance(a, Node) and a.is_selector
        sb = isinstance(b, Node) and b.is_selector
        if sa and sb:
            return self.graph.make("sel_" + op, args=(a, b), loc=self.node_loc(loc, src))
        if sa or sb:
            raise self.error(f"'{op}' combines two selectors or two s-ops, not a selector with a "
                             f"{type_name(b if sa else a)}", loc)
        return self.mapped(op, [a, b], loc, src)

    def ev_and_(self, t: Tree, scope: Scope, src: Source) -> Any:
        return self._logic("and", t, scope, src)

    def ev_or_(self, t: Tree, scope: Scope, src: Source) -> Any:
        return self._logic("or", t, scope, src)

    def ev_not_(self, t: Tree, scope: Scope, src: Source) -> Any:
        v = self.eval(t.children[0], scope, src)
        loc = self.loc(t, src)
        if isinstance(v, Node) and v.is_selector:
            return self.graph.make("sel_not", args=(v,), loc=self.node_loc(loc, src))
        return self.mapped("not", [v], loc, src)

    def ev_member(self, t: Tree, scope: Scope, src: Source) -> Any:
        a = self.eval(t.children[0], scope, src)
        b = self.eval(t.children[1], scope, src)
        loc = self.loc(t, src)
        if isinstance(b, Node) and not b.is_selector:
            if isinstance(a, Node):
                raise self.error("unsupported: 'in' with an s-op on both sides", loc)
            contains = self.library.lookup("contains")
            return self.call(contains, [b, a], {}, loc, src)
        return self.mapped("in", [a, b], loc, src)

    def ev_ifelse(self, t: Tree, scope: Scope, src: Source) -> Any:
        yes, cond_t, no = t.children
        cond = self.eval(cond_t, scope, src)
        loc = self.loc(t, src)
        if isinstance(cond, Node):
            a = self.eval(yes, scope, src)
            b = self.eval(no, scope, src)
            return self.mapped("ite", [cond, a, b], loc, src)
        if isinstance(cond, (Function, Builtin)):
            raise self.error("a condition cannot be a function", loc)
        return self.eval(yes if cond else no, scope, src)

    def ev_call(self, t: Tree, scope: Scope, src: Source) -> Any:
        callee = self.eval(t.children[0], scope, src)
        loc = self.loc(t, src)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if t.children[1] is not None:
            for arg in t.children[1].children:
                if arg.data == "posarg":
                    if kwargs:
                        raise self.error("positional argument after a keyword argument",
                                         self.loc(arg, src))
                    args.append(self.eval(arg.children[0], scope, src))
                elif arg.data == "kwarg":
                    kwargs[str(arg.children[0])] = self.eval(arg.children[1], scope, src)
                else:
                    args.append(OpArg(str(arg.children[0])))
        self.tick(t, src)
        return self.call(callee, args, kwargs, loc, src)

    def call(self, callee: Any, args: list[Any], kwargs: dict[str, Any], loc: Loc, src: Source) -> Any:
        if isinstance(callee, Builtin):
            bound = self.bind_args(callee.name, list(callee.params), callee.defaults, args, kwargs, loc)
            for name, v in bound.items():
                if isinstance(v, OpArg) and not (callee.name == "select" and name == "op"):
                    raise self.error(f"a comparison operator can only be the third argument of "
                                     f"select, not an argument of {callee.name}()", loc)
            return callee.fn(self, loc, src, **bound)
        if not isinstance(callee, Function):
            raise self.error(f"a {type_name(callee)} is not a function", loc)
        for v in [*args, *kwargs.values()]:
            if isinstance(v, OpArg):
                raise self.error("a comparison operator can only be the third argument of select",
                                 loc)
        params = [p for p, _ in callee.params]
        defaults = {}
        for p, default in callee.params:
            if default is not None:
                defaults[p] = self.eval(default, callee.scope, callee.source)
        bound = self.bind_args(callee.name, params, defaults, args, kwargs, loc)
        if self.depth >= MAX_DEPTH:
            raise self.error(f"recursion too deep in {callee.name}()", loc)
        inner = Scope(callee.scope)
        for name, value in bound.items():
            inner.vars[name] = value
        pushed = not src.library
        if pushed:
            self.user_sites.append(loc)
        self.depth += 1
        try:
            self.exec_block(callee.body, inner, callee.source)
            values = [self.eval(e, inner, callee.source) for e in callee.ret.children[0].children]
        finally:
            self.depth -= 1
            if pushed:
                self.user_sites.pop()
        return values[0] if len(values) == 1 else tuple(values)

    def bind_args(self, fname: str, params: list[str], defaults: dict[str, Any], args: list[Any],
                  kwargs: dict[str, Any], loc: Loc) -> dict[str, Any]:
        if len(args) > len(params):
            raise self.error(f"{fname}() takes {len(params)} argument{'s' * (len(params) != 1)} "
                             f"but {len(args)} were given", loc)
        bound = dict(zip(params, args, strict=False))
        for k, v in kwargs.items():
            if k not in params:
                raise self.error(f"{fname}() has no parameter named '{k}'", loc)
            if k in bound:
                raise self.error(f"{fname}() got two values for '{k}'", loc)
            bound[k] = v
        for p in params:
            if p not in bound:
                if p in defaults:
                    bound[p] = defaults[p]
                else:
                    raise self.error(f"{fname}() is missing argument '{p}' (it takes "
                                     f"{len(params)}: {', '.join(params)})", loc)
        return bound


def load_program(path: Path) -> Program:
    """Run the standard library, then the file; the program's names live on top of the library."""
    return Interpreter().load(path)


def load_text(text: str, file: str = "<input>") -> Program:
    return Interpreter().load_text(text, file)
