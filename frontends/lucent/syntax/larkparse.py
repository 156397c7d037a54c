"""Lucent parsing with lark (grammar in ``lucent.lark``): the reference parser, and the one
that reports every syntax error.  ``parser.parse_text`` comes here when the fast path
(:mod:`.fastparse`) declines a text.

Parse errors become :class:`InputError` at ``file:line:col`` naming what was expected;
a declaration on a clock, ``x: T when c``, which only the parser tells from a sampling or a lazy
``when``, is reported as ``unsupported: <feature>``.  The clock operators are built by
:class:`~.clocksyntax.ClockSyntax`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import lark
from lark import Token, v_args

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import collections
from kinduct.frontends.lucent.core.limits import check_tree
from kinduct.frontends.lucent.syntax.clocksyntax import ClockSyntax
from kinduct.frontends.lucent.syntax.contractsyntax import ContractSyntax
from kinduct.frontends.lucent.syntax.gapsyntax import GapSyntax
from kinduct.frontends.lucent.syntax.numerals import decimal, hex_real, split_params
from kinduct.frontends.lucent.syntax.positions import meta_pos, token_pos
from kinduct.frontends.lucent.syntax.treebuild import FastTransformer, skip_unit_rules
from kinduct.frontends.lucent.syntax.typesyntax import TypeSyntax
from kinduct.kernel.errors import InputError, SourceLocation, UnsupportedError

GRAMMAR = Path(__file__).with_name("lucent.lark")


@lru_cache(maxsize=1)
def lark_parser() -> lark.Lark:
    """lark's LALR parser of ``lucent.lark``, its unit rules skipped (built once)."""
    # cache=True keeps the compiled LALR tables in the temp directory (keyed by the grammar's
    # hash): compiling them costs most of a CLI invocation's start-up otherwise.
    parser = lark.Lark(GRAMMAR.read_text(), parser="lalr", propagate_positions=True,
                       maybe_placeholders=False, cache=True)
    skip_unit_rules(parser)
    return parser


_TOKEN_NAMES = {
    "SEMICOLON": "';'", "COLON": "':'", "COMMA": "','", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "EQ": "'='", "NAME": "an identifier",
    "NUMBER": "a number", "DECIMAL": "a number", "TEL": "'tel'", "LET": "'let'", "RETURNS": "'returns'",
    "THEN": "'then'", "ELSE": "'else'", "FI": "'fi'", "ARROW": "'->'", "STRING": "a string",
    "VAR": "'var'", "NOC": "'noc'", "OF": "'of'", "PROVIDED": "'provided'", "DOT": "'.'",
    "NODE": "'node'", "FUNCTION": "'function'", "TYPE": "'type'", "CONST": "'const'",
    "CIRCUMFLEX": "'^'", "BAR": "'|'", "VBAR": "'|'", "$END": "end of file", "INCLUDE": "'include'",
    "CONTRACT": "'contract'", "CONTRACT_CLOSE": "'*)' or '*/'",
}


def _expected_text(expected: set[str]) -> str:
    names = []
    for tok in sorted(expected):
        name = _TOKEN_NAMES.get(tok)
        if name is None:
            if tok.startswith("__ANON"):
                continue
            name = f"'{tok.lower()}'" if tok.isalpha() else tok
        if name not in names:
            names.append(name)
    if not names:
        return "a different token"
    if len(names) > 6:
        # Too many alternatives to be useful: name the most common structural ones.
        preferred = [n for n in ("';'", "an identifier", "an expression", "')'", "'tel'") if n in names]
        names = preferred or names[:6]
    return " or ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " or " + names[-1]


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    return f"'{tok.value}'"


def lark_decls(text: str, file: str) -> list:
    """The declarations of ``text`` as the builder gives them, or the located error."""
    try:
        tree = lark_parser().parse(text)
    except lark.UnexpectedToken as exc:
        if exc.token.type == "WHEN":  # after a type, or sampling a sampled expression
            loc = SourceLocation(file, exc.line, exc.column)
            raise UnsupportedError("declarations on a clock ('x: T when c') and sampling a "
                                   "sampled expression", loc,
                                   InputError.at("", file, text, exc.line, exc.column).source_line
                                   ) from None
        expected = set(exc.accepts or exc.expected)
        if "TEL" in expected and "SEMICOLON" not in expected:
            what = "an equation, 'check', 'assert' or 'tel'"
        elif any(t in expected for t in ("NUMBER", "MINUS", "NOT", "PRE")) and "SEMICOLON" not in expected:
            what = "an expression"
        else:
            what = _expected_text(expected)
        line = exc.line if exc.line and exc.line > 0 else text.count("\n") + 1
        col = exc.column if exc.column and exc.column > 0 else 1
        raise InputError.at(f"expected {what} before {_describe(exc.token)}", file, text, line, col) from None
    except lark.UnexpectedCharacters as exc:
        raise InputError.at(f"unexpected character '{text[exc.pos_in_stream]}'", file, text,
                            exc.line, exc.column) from None
    except lark.UnexpectedEOF:
        line = text.count("\n") + 1
        raise InputError.at("unexpected end of file", file, text, line, 1) from None
    check_tree(tree, text, file)
    return FastTransformer(_Builder(text, file)).transform(tree)


_BINOPS = {"or": "or", "xor": "xor", "and": "and", "=>": "=>", "=": "=", "<>": "<>", "<": "<",
           "<=": "<=", ">": ">", ">=": ">=", "+": "+", "-": "-", "*": "*", "/": "/", "div": "div",
           "mod": "mod", "==>": "==>", "&&": "&&", "||": "||", "lsh": "lsh", "rsh": "rsh",
           "++": "++", "in": "in"}


@v_args(meta=True)
class _Builder(ClockSyntax, GapSyntax, TypeSyntax, ContractSyntax):
    """lark tree → AST.  Property names are the raw source text of their expression, as Kind 2
    names unnamed properties."""

    def __init__(self, text: str, file: str) -> None:
        super().__init__()
        self.text = text
        self.file = file

    def _src(self, e: A.Expr) -> str:
        return self.text[e.pos.start:e.pos.end].strip()

    # ---- top level ----
    def start(self, meta, items):
        return items

    def include_decl(self, meta, items):
        return ("include", items[0][1:-1], meta_pos(meta))

    def datatype_decl(self, meta, items):
        name, *ctors = items
        params = ctors.pop(0)[1] if ctors and ctors[0][0] == "tparams" else []
        return [A.TypeDecl(str(name), A.TypeExpr("adt", tuple(ctors), meta_pos(meta)), token_pos(name),
                           params)]

    def poly_type_decl(self, meta, items):
        return [A.TypeDecl(str(items[0]), items[2], token_pos(items[0]), items[1][1])]

    def type_app(self, meta, items):
        args = tuple(i for i in items[1:] if isinstance(i, A.TypeExpr))
        return A.TypeExpr("app", (str(items[0]), args), meta_pos(meta))

    def constructor(self, meta, items):
        return (str(items[0]), tuple(items[1:]), token_pos(items[0]))

    def ctor_field(self, meta, items):
        return (str(items[0]), items[1])

    def type_decl(self, meta, items):
        names = items[0]
        texpr = items[1] if len(items) > 1 else None
        return [A.TypeDecl(n, texpr, p) for n, p in names]

    def const_decl(self, meta, items):
        decls = [d for item in items for d in item]
        for d in decls:
            d.decl_pos = meta_pos(meta)
        return decls

    def const_item(self, meta, items):
        names = items[0]
        texpr = next((i for i in items[1:] if isinstance(i, A.TypeExpr)), None)
        value = next((i for i in items[1:] if isinstance(i, A.Expr)), None)
        return [A.ConstDecl(n, texpr, value, p) for n, p in names]

    def name_list(self, meta, items):
        return [(str(t), token_pos(t)) for t in items]

    # ---- nodes ----
    def node_mod(self, meta, items):
        return ("mod", str(items[0]))

    def node_kw(self, meta, items):
        return ("kw", str(items[0]))

    def _node(self, meta, items, imported: bool):
        modifier = None
        type_params: list[str] = []
        kind = "node"
        name = None
        params: list[list[A.Param]] = []
        locals_: list[A.Param] = []
        consts = []
        contract: list[A.ContractItem] = []
        body = None
        name_pos = meta_pos(meta)
        for it in items:
            if isinstance(it, tuple) and it[0] == "mod":
                modifier = it[1]
            elif isinstance(it, tuple) and it[0] == "tparams":
                type_params = it[1]
            elif isinstance(it, tuple) and it[0] == "kw":
                kind = it[1]
            elif isinstance(it, Token) and it.type == "NAME":
                name = str(it)
                name_pos = token_pos(it)
            elif isinstance(it, Token):
                continue
            elif isinstance(it, tuple) and it[0] == "params":
                params.append(it[1])
            elif isinstance(it, tuple) and it[0] == "vars":
                locals_.extend(it[1])
            elif isinstance(it, tuple) and it[0] == "consts":
                consts.extend(it[1])
            elif isinstance(it, tuple) and it[0] == "contract":
                contract.extend(it[1])
            elif isinstance(it, tuple) and it[0] == "body":
                body = it[1]
        # params? may be absent: count the parenthesised groups from the token stream
        ins, outs = split_params(self.text[meta.start_pos:meta.end_pos], params)
        return A.NodeDecl(name, kind, imported, ins, outs, locals_, consts, body or [], contract,
                          name_pos, modifier, type_params)

    def node_decl(self, meta, items):
        return self._node(meta, items, False)

    def imported_decl(self, meta, items):
        return self._node(meta, items, True)

    def contract_decl(self, meta, items):
        name = items[0]
        params = [it[1] for it in items if isinstance(it, tuple) and it[0] == "params"]
        tparams = next((it[1] for it in items if isinstance(it, tuple) and it[0] == "tparams"), [])
        contract = [it for it in items if isinstance(it, A.ContractItem)]
        ins, outs = split_params(self.text[meta.start_pos:meta.end_pos], params)
        return A.NodeDecl(str(name), "contract", False, ins, outs, [], [], [], contract, token_pos(name),
                          type_params=tparams)

    def params(self, meta, items):
        return ("params", [p for group in items for p in group])

    def param(self, meta, items):
        const = isinstance(items[0], Token) and items[0].type == "CONST"
        rest = items[1:] if const else items
        names, texpr = rest[0], rest[1]
        pred = rest[2] if len(rest) > 2 else None
        return [A.Param(n, texpr, p, const, pred) for n, p in names]

    def var_section(self, meta, items):
        params = [p for group in items for p in group]
        for p in params:
            p.decl_pos = meta_pos(meta)
        return ("vars", params)

    def var_item(self, meta, items):
        names, texpr = items[0], items[1]
        pred = items[2] if len(items) > 2 else None
        return [A.Param(n, texpr, p, False, pred) for n, p in names]

    def const_section(self, meta, items):
        return ("consts", [(*item[:3], meta_pos(meta)) for group in items for item in group])

    def local_const(self, meta, items):
        """``const a, b: T;`` (free: no value) or ``const c [: T] = e;``."""
        texpr = next((i for i in items[1:] if isinstance(i, A.TypeExpr)), None)
        value = next((i for i in items[1:] if isinstance(i, A.Expr)), None)
        return [(n, texpr, value, p) for n, p in items[0]]

    def body(self, meta, items):
        return ("body", [s for s in items if not isinstance(s, Token)])

    # ---- statements ----
    def equation(self, meta, items):
        lhs, rhs = items
        indexed = [item for item in lhs if item[2]]
        if not indexed:
            return A.Equation([(name, pos) for name, pos, _ in lhs], rhs, meta_pos(meta))
        name, pos, indices = indexed[0]
        return A.ArrayDef(name, indices, rhs, pos, alone=len(lhs) == 1)

    def lhs(self, meta, items):
        return items

    def lhs_item(self, meta, items):
        return (str(items[0]), token_pos(items[0]), [str(i) for i in items[1:]])

    def assert_stmt(self, meta, items):
        return A.Assert(items[0], meta_pos(meta))

    def _check(self, meta, items, kind):
        name = next((str(i)[1:-1] for i in items if isinstance(i, Token) and i.type == "STRING"), None)
        exprs = [i for i in items if isinstance(i, A.Expr)]
        text = self._src(exprs[0])
        chk = A.Check(name, exprs[0], meta_pos(meta), kind=kind, text=text)
        if kind == "provided":
            chk.provided = exprs[1]
        return chk

    def check_stmt(self, meta, items):
        return self._check(meta, items, "invariant")

    def check_provided(self, meta, items):
        return self._check(meta, items, "provided")

    def check_reach(self, meta, items):
        chk = self._check(meta, [i for i in items if not isinstance(i, tuple)], "reachable")
        for b in items:
            if isinstance(b, tuple):
                chk.bounds[b[0]] = b[1]
        return chk

    def reach_bound(self, meta, items):
        return (str(items[0]).lower(), items[1])

    def property_stmt(self, meta, items):  # --%PROPERTY ["name"] e;  (*!PROPERTY: e; *)
        e = next(i for i in items if isinstance(i, A.Expr))
        name = next((str(i)[1:-1] for i in items if isinstance(i, Token) and i.type == "STRING"),
                    None)
        return A.Check(name, e, e.pos, kind="invariant", text=self._src(e))

    def main_stmt(self, meta, items):  # --%MAIN;  --!MAIN: true;  (*%MAIN; *)
        if any(isinstance(i, Token) and i.type == "FALSE" for i in items):
            return lark.Discard
        return A.MainAnnot(meta_pos(meta))

    def if_stmt(self, meta, items):
        branches = [(items[0], items[1])]
        orelse = None
        for it in items[2:]:
            if it[0] == "elsif":
                branches.append((it[1], it[2]))
            else:
                orelse = it[1]
        return A.IfBlock(branches, orelse, meta_pos(meta))

    def block(self, meta, items):
        return list(items)

    def elsif(self, meta, items):
        return ("elsif", items[0], items[1])

    def else_part(self, meta, items):
        return ("else", items[0])

    def frame_stmt(self, meta, items):
        names = [n for n, _ in items[0]]
        inits = [i for i in items[1:] if isinstance(i, tuple) and i[0] == "init"]
        body = [i for i in items[1:] if not (isinstance(i, tuple) and i[0] == "init")]
        return A.FrameBlock(names, [(n, e, p) for _, n, e, p in inits], body, meta_pos(meta))

    def when_stmt(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        blocks = [i for i in items if isinstance(i, list)]
        return A.LazyBlock([(items[1], blocks[0])], blocks[1] if len(blocks) > 1 else None,
                           meta_pos(meta), "when")

    def cond_stmt(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        cases = [i for i in items if isinstance(i, tuple)]
        blocks = [i for i in items if isinstance(i, list)]
        return A.LazyBlock(cases, blocks[0] if blocks else None, meta_pos(meta), "cond")

    def cond_case(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return (items[0], items[1])

    def quantifier(self, meta, items):
        kind, (_, params), body = items
        return A.Quant(str(kind), params, body, pos=meta_pos(meta))

    def frame_init(self, meta, items):
        name, *indices, rhs = items
        pos = token_pos(name)
        if indices:  # an initial value given element by element
            rhs = A.ArrayDef(str(name), [str(i) for i in indices], rhs, pos)
        return ("init", str(name), rhs, pos)

    # ---- expressions ----
    def arrow(self, meta, items):
        return A.Binop("->", items[0], items[2], pos=meta_pos(meta))

    def ite(self, meta, items):
        items = [i for i in items if not isinstance(i, Token)]
        return A.Ite(items[0], items[1], items[2], pos=meta_pos(meta))

    def lazy_ite(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        items = [i for i in items if not isinstance(i, Token)]
        return A.Ite(items[0], items[1], items[2], lazy=True, pos=meta_pos(meta))

    def lazy_binop(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        op = {"and": "and then", "or": "or else"}[str(items[1])]
        return A.Binop(op, items[0], items[3], pos=meta_pos(meta))

    def any_expr(self, meta, items):
        return A.AnyE(str(items[0]), items[1], items[2], pos=meta_pos(meta))

    def choose_expr(self, meta, items):
        return A.AnyE(str(items[0]), items[1], items[2], functional=True, pos=meta_pos(meta))

    def tester(self, meta, items):
        return A.Tester(str(items[0]), items[1], pos=meta_pos(meta))

    def match_expr(self, meta, items):
        arg, *cases = items
        return A.Match(arg, [c for c in cases if isinstance(c, tuple)], pos=meta_pos(meta))

    def match_case(self, meta, items):
        return (items[0], items[1])

    def pattern(self, meta, items):
        name, *args = items
        return A.Pattern(str(name), list(args) if args else None, token_pos(name))

    def any_of_type(self, meta, items):  # any@<T>: any value of T
        return A.AnyE("%any", items[1], None, pos=meta_pos(meta))

    def choose_of_type(self, meta, items):  # choose@<T>: one value of T, the same at every step
        return A.AnyE("%any", items[1], None, functional=True, pos=meta_pos(meta))

    def binop(self, meta, items):
        return A.Binop(_BINOPS[str(items[1])], items[0], items[2], pos=meta_pos(meta))

    def unop(self, meta, items):
        return A.Unop("not", items[1], pos=meta_pos(meta))

    def neg(self, meta, items):
        return A.Unop("neg", items[1], pos=meta_pos(meta))

    def pre(self, meta, items):
        return A.Unop("pre", items[1], pos=meta_pos(meta))

    def last(self, meta, items):
        return A.Unop("last", items[1], pos=meta_pos(meta))

    def conv(self, meta, items):
        return A.Unop("to_" + str(items[0]), items[1], pos=meta_pos(meta))

    def index(self, meta, items):
        return A.Index(items[0], items[1], pos=meta_pos(meta))

    def set_type(self, meta, items):
        return A.TypeExpr("set", (items[2],), meta_pos(meta))

    def map_type(self, meta, items):
        key, value = (i for i in items if isinstance(i, A.TypeExpr))
        return A.TypeExpr("map", (key, value), meta_pos(meta))

    def set_lit(self, meta, items):
        return collections.set_literal(items, meta_pos(meta))

    def map_lit(self, meta, items):
        return collections.map_literal(items[1:], meta_pos(meta))

    def field(self, meta, items):
        return A.Field(items[0], str(items[1]), pos=meta_pos(meta))

    def caret(self, meta, items):
        return A.Caret(items[0], items[1], pos=meta_pos(meta))

    def number(self, meta, items):
        return A.Lit(int(items[0]), "int", pos=meta_pos(meta))

    def hexint(self, meta, items):
        return A.Lit(int(str(items[0]), 16), "int", pos=meta_pos(meta))

    def decimal(self, meta, items):
        return A.Lit(decimal(str(items[0])), "real", pos=meta_pos(meta))

    def hexreal(self, meta, items):
        return A.Lit(hex_real(str(items[0])), "real", pos=meta_pos(meta))

    def true(self, meta, items):
        return A.Lit(True, "bool", pos=meta_pos(meta))

    def false(self, meta, items):
        return A.Lit(False, "bool", pos=meta_pos(meta))

    def var(self, meta, items):
        return A.Var(str(items[0]), pos=meta_pos(meta))

    def mode_ref(self, meta, items):
        return A.ModeRef(tuple(str(i) for i in items), pos=meta_pos(meta))

    def poly_call(self, meta, items):
        args = items[2] if len(items) > 2 else []
        return A.Call(str(items[0]), args, items[1], pos=meta_pos(meta))

    def type_params(self, meta, items):
        return ("tparams", [str(t) for t in items if t.type == "NAME"])

    def type_args(self, meta, items):
        return [t for t in items if isinstance(t, A.TypeExpr)]

    def call(self, meta, items):
        args = items[1] if len(items) > 1 else []
        return A.Call(str(items[0]), args, pos=meta_pos(meta))

    def record_lit(self, meta, items):
        return A.RecordLit(str(items[0]), list(items[1:]), pos=meta_pos(meta))

    def poly_record_lit(self, meta, items):
        return A.RecordLit(str(items[0]), list(items[2:]), items[1], pos=meta_pos(meta))

    def poly_var(self, meta, items):  # a nullary constructor or 'any' given type arguments
        return A.Call(str(items[0]), [], items[1], pos=meta_pos(meta), bare=True)

    def field_init(self, meta, items):
        return (str(items[0]), items[1])

    def paren_tuple(self, meta, items):
        return A.TupleE([items[0], *items[1]], pos=meta_pos(meta))

    def tuple_lit(self, meta, items):
        return A.TupleE(list(items[0]), pos=meta_pos(meta))

    def array_lit(self, meta, items):
        return A.ArrayLit(list(items[0]), pos=meta_pos(meta))

    def ascription(self, meta, items):
        return A.Ascribe(items[0], items[1], pos=meta_pos(meta))

    def expr_list(self, meta, items):
        return list(items)
