"""Parse ``.iospec`` files into :class:`~kinduct.frontends.iospec.ast.Spec`, with located errors.

The syntax mirrors the document's notation in plain text (``iospec.lark``):

==========================  ====================================================================
``[> x : τ]``               read an integer into ``x``; invalid values (outside ``τ``) are never
                            given (the document's ``[▷x]^τ``)
``[> x : τ else stop]``     an invalid value must make the program stop (``[▷x]^τ_⊤``)
``[> x : τ else retry]``    an invalid value is discarded and read again (``[▷x]^τ_↻``)
``[{t1, t2, eps} >]``       write the value of one of the terms; ``eps`` (or ``ε``) means the
                            output may be left out (``[{t1, t2, ε}▷]``)
``s1 s2``                   sequential composition (whitespace or newlines)
``0``, ``nop``              the empty specification ``𝟎``
``[c] => s1 else s2``       branch on the condition ``c`` (``[c] ⇒ s1 △ s2``)
``(s)^E``                   iterate ``s`` until an exit marker (``s^→E``; also ``^->E``)
``E``, ``exit``             exit marker: leave the innermost iteration
``# ...``                   a comment, to the end of the line
==========================  ====================================================================

Precedence follows the document: ``^E`` binds tightest (to the parenthesised group before it),
then sequential composition, then branching, so ``[c] => s1 else s2 s3`` is
``[c] => s1 else (s2 s3)``; a branch inside a then-part must be parenthesised.

Value sets ``τ``: ``int``, ``nat`` (≥ 0), ``pos`` (> 0), ``neg`` (< 0), ``lo..hi``,
``{1, 2, 3}``, ``> k`` (also ``>= < <= = !=``), ``!τ`` (complement), ``τ & τ``
(intersection), ``τ | τ`` (union), parentheses.

Terms: integers, ``true``/``false``; ``x_C`` the current (last read) value of ``x``, ``x_C^-k``
the value read ``k`` reads before it, ``x_A`` the list of all values read into ``x``;
``+ - * / %`` (``/`` and ``%`` round towards minus infinity), comparisons ``= != < <= > >=``,
``and`` (``&&``), ``or`` (``||``), ``not``; functions ``sum``, ``product``, ``len``/``length``,
``max``, ``min`` and ``reverse`` of a list, ``abs`` of an integer, ``elem(t, xs)`` (membership)
and ``count(t, xs)`` (occurrences).  Variable names are letters, digits and ``_``, starting with
a letter; the keywords (``E exit nop else stop retry eps int nat pos neg true false and or not``)
are reserved.
"""

from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from kinduct.frontends.iospec import ast as A
from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import read_source

_GRAMMAR = Path(__file__).with_name("iospec.lark")
#: Deepest nesting of terms and specifications the evaluators accept (they recurse).
MAX_DEPTH = 200

_NAMES = {"IDENT": "a name", "INT": "an integer", "GT": "'>'", "LT": "'<'", "LE": "'<='",
          "GE": "'>='", "EQ": "'='", "NE": "'!='", "LSQB": "'['", "RSQB": "']'", "LPAR": "'('",
          "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','", "COLON": "':'",
          "ELSE": "'else'", "STOP": "'stop'", "RETRY": "'retry'", "NOP": "'0'", "EXIT": "'E'",
          "EPS": "'eps'", "EPSILON": "'ε'", "SETNAME": "a value set (int, nat, pos, neg)",
          "ITER": "'^E'", "CARET": "'^'", "MINUS": "'-'", "PLUS": "'+'", "STAR": "'*'",
          "SLASH": "'/'", "PERCENT": "'%'", "BANG": "'!'", "BAR": "'|'", "AMP": "'&'",
          "AND": "'and'", "OR": "'or'", "NOT": "'not'", "TRUE": "'true'", "FALSE": "'false'",
          "EQUAL": "'='", "__ANON_0": "'=>'", "DOT": "'.'", "__ANON_1": "'..'", "$END": "end of input"}
_SETS: dict[str, A.ValueSet] = {"int": A.Everything(), "nat": A.Compare(">=", 0),
                                "pos": A.Compare(">", 0), "neg": A.Compare("<", 0)}


@functools.cache
def _lark() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True)


def _syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
    line, col = exc.line, exc.column
    if isinstance(exc, UnexpectedCharacters):
        msg = f"unexpected character {exc.char!r}"
        allowed = sorted({_NAMES.get(n, n) for n in exc.allowed or ()})
        if allowed:
            msg += f", expected one of: {', '.join(allowed)}"
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        expected = sorted({_NAMES.get(n, n) for n in exc.expected})
        msg = f"unexpected {exc.token.value!r}, expected one of: {', '.join(expected)}"
    else:
        lines = text.rstrip().splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        expected = sorted({_NAMES.get(n, n) for n in getattr(exc, "expected", ())} - {"end of input"})
        msg = "unexpected end of input" + (f", expected one of: {', '.join(expected)}" if expected else "")
    return InputError.at(msg, file, text, line, col)


class _Builder:
    """Turns lark's tree into the AST, checking names and the types of terms on the way."""

    def __init__(self, text: str, file: str | None) -> None:
        self.text = text
        self.file = file

    def error(self, message: str, where: Tree | Token | A.Loc) -> InputError:
        loc = where if isinstance(where, A.Loc) else self.loc(where)
        return InputError.at(message, self.file, self.text, loc.line, loc.column)

    @staticmethod
    def loc(node: Tree | Token) -> A.Loc:
        if isinstance(node, Token):
            return A.Loc(node.line or 0, node.column or 0)
        if node.meta.empty:
            return A.NOWHERE
        return A.Loc(node.meta.line, node.meta.column)

    # ---- specifications
    def seq(self, tree: Tree, depth: int) -> A.Seq:
        if depth > MAX_DEPTH:
            raise self.error(f"the specification nests more than {MAX_DEPTH} levels deep", tree)
        items: list[A.Action] = []
        for child in tree.children:
            if child is None:
                continue
            if child.data == "branch":
                items.append(self.branch(child, depth))
            else:
                items.extend(self.item(child, depth))
        return A.Seq(tuple(items))

    def branch(self, tree: Tree, depth: int) -> A.Branch:
        cond_tree, then_tree, _else, else_tree = tree.children
        cond = self.term(cond_tree, depth + 1)
        self.expect(cond, "bool", cond_tree, "a branching condition")
        return A.Branch(cond, self.seq(then_tree, depth + 1), self.seq(else_tree, depth + 1),
                        self.loc(tree))

    def item(self, tree: Tree, depth: int) -> list[A.Action]:
        atom = tree.children[0]
        iterated = len(tree.children) > 1
        kind = atom.data
        if kind == "group":
            inner = list(self.seq(atom.children[0], depth + 1).items)
        elif kind == "nop":
            inner = []
        elif kind == "exit":
            inner = [A.Exit(self.loc(atom))]
        elif kind == "read":
            inner = [self.read(atom)]
        else:
            inner = [self.write(atom, depth)]
        if iterated:
            return [A.Loop(A.Seq(tuple(inner)), self.loc(tree))]
        return inner

    def read(self, tree: Tree) -> A.Read:
        _gt, name, vset, *rest = tree.children
        var = str(name)
        if var.endswith(("_C", "_A")):
            raise self.error(f"a read names the variable itself ({var[:-2]!r}), "
                             f"not {var!r}", name)
        mode: A.InputMode = "assume"
        if rest and rest[0] is not None:
            mode = "stop" if rest[0].children[1].type == "STOP" else "retry"
        return A.Read(var, self.vset(vset), mode, self.loc(tree))

    def write(self, tree: Tree, depth: int) -> A.Write:
        options: list[A.Term | None] = []
        for child in tree.children[:-1]:
            if child.data == "epsilon":
                options.append(None)
                continue
            term = self.term(child.children[0], depth + 1)
            self.expect(term, "int", child, "an output")
            options.append(term)
        if all(o is None for o in options):
            raise self.error("an output needs at least one term besides ε "
                             "(an output of nothing is the empty specification 0)", tree)
        return A.Write(tuple(dict.fromkeys(options)), self.loc(tree))

    # ---- value sets
    def vint(self, tree: Tree) -> int:
        value = int(tree.children[-1])
        return -value if len(tree.children) == 2 else value

    def vset(self, tree: Tree | Token) -> A.ValueSet:
        kind = tree.data
        if kind == "vnamed":
            return _SETS[str(tree.children[0])]
        if kind == "vrange":
            lo, hi = self.vint(tree.children[0]), self.vint(tree.children[1])
            if lo > hi:
                raise self.error(f"the range {lo}..{hi} is empty", tree)
            return A.Range(lo, hi)
        if kind == "vfinite":
            return A.Finite(tuple(sorted({self.vint(c) for c in tree.children})))
        if kind == "vcompare":
            op = str(tree.children[0])
            return A.Compare("=" if op == "==" else op, self.vint(tree.children[1]))
        if kind == "vcomplement":
            return A.Complement(self.vset(tree.children[1]))
        if kind in ("vunion", "vintersect"):
            return A.SetOp("|" if kind == "vunion" else "&", self.vset(tree.children[0]),
                           self.vset(tree.children[2]))
        raise self.error(f"unexpected value set {kind}", tree)  # pragma: no cover

    # ---- terms
    def expect(self, term: A.Term, want: A.TermType, where: Tree | Token, what: str) -> None:
        got = type_of(term)
        if got != want:
            raise self.error(f"{what} must be {_ARTICLE[want]}, but this term is {_ARTICLE[got]}",
                             where)

    def term(self, tree: Tree | Token, depth: int) -> A.Term:
        if depth > MAX_DEPTH:
            raise self.error(f"the term nests more than {MAX_DEPTH} levels deep", tree)
        kind = tree.data
        loc = self.loc(tree)
        if kind == "integer":
            return A.Const(int(tree.children[0]), loc)
        if kind in ("true", "false"):
            return A.Const(kind == "true", loc)
        if kind == "variable":
            return self.variable(tree.children[0])
        if kind == "previous":
            base = self.variable(tree.children[0])
            if not isinstance(base, A.Current):
                raise self.error("only a current value x_C can look back (x_C^-1)", tree)
            return A.Current(base.var, int(tree.children[3]), loc)
        if kind == "negative":
            arg = self.term(tree.children[1], depth + 1)
            self.expect(arg, "int", tree.children[1], "the operand of '-'")
            return A.Apply("neg", (arg,), loc)
        if kind == "binary":
            left, op, right = tree.children
            args = (self.term(left, depth + 1), self.term(right, depth + 1))
            self.expect(args[0], "int", left, f"the left operand of {str(op)!r}")
            self.expect(args[1], "int", right, f"the right operand of {str(op)!r}")
            return A.Apply(str(op), args, self.loc(op))
        if kind == "comparison":
            left, op, right = tree.children
            args = (self.term(left, depth + 1), self.term(right, depth + 1))
            self.expect(args[0], "int", left, f"the left operand of {str(op)!r}")
            self.expect(args[1], "int", right, f"the right operand of {str(op)!r}")
            return A.Apply("=" if str(op) == "==" else str(op), args, self.loc(op))
        if kind in ("conjunction", "disjunction"):
            left, op, right = tree.children
            args = (self.term(left, depth + 1), self.term(right, depth + 1))
            name = "and" if kind == "conjunction" else "or"
            self.expect(args[0], "bool", left, f"the left operand of {name!r}")
            self.expect(args[1], "bool", right, f"the right operand of {name!r}")
            return A.Apply(name, args, self.loc(op))
        if kind == "logical_not":
            arg = self.term(tree.children[1], depth + 1)
            self.expect(arg, "bool", tree.children[1], "the operand of 'not'")
            return A.Apply("not", (arg,), loc)
        if kind == "call":
            return self.call(tree, depth)
        raise self.error(f"unexpected term {kind}", tree)  # pragma: no cover

    def variable(self, token: Token) -> A.Term:
        name = str(token)
        loc = self.loc(token)
        if name.endswith("_C") and len(name) > 2:
            return A.Current(name[:-2], 0, loc)
        if name.endswith("_A") and len(name) > 2:
            return A.All(name[:-2], loc)
        raise self.error(f"write {name}_C for the current value of {name!r} or {name}_A for the "
                         "list of all its values", token)

    def call(self, tree: Tree, depth: int) -> A.Term:
        name_token, *arg_trees = tree.children
        arg_trees = [a for a in arg_trees if a is not None]
        name = str(name_token)
        if name not in A.FUNCTIONS:
            raise self.error(f"unknown function {name!r} (known: {', '.join(sorted(A.FUNCTIONS))})",
                             name_token)
        params, _result = A.FUNCTIONS[name]
        if len(arg_trees) != len(params):
            raise self.error(f"{name} takes {len(params)} argument(s), got {len(arg_trees)}",
                             name_token)
        args = tuple(self.term(a, depth + 1) for a in arg_trees)
        for i, (arg, want, where) in enumerate(zip(args, params, arg_trees, strict=True)):
            self.expect(arg, want, where, f"argument {i + 1} of {name}")
        return A.Apply("len" if name == "length" else name, args, self.loc(name_token))


_ARTICLE = {"int": "an integer", "list": "a list", "bool": "a Boolean"}


def type_of(term: A.Term) -> A.TermType:
    """The type of a term the parser built (its arguments were checked when it was built)."""
    if isinstance(term, A.Const):
        return "bool" if isinstance(term.value, bool) else "int"
    if isinstance(term, A.Current):
        return "int"
    if isinstance(term, A.All):
        return "list"
    if term.op in A.FUNCTIONS:
        return A.FUNCTIONS[term.op][1]
    if term.op in A.COMPARISONS or term.op in A.CONNECTIVES or term.op == "not":
        return "bool"
    return "int"


def parse(text: str, file: str | None = None) -> A.Spec:
    """Parse and check a specification; raises :class:`InputError` (exit 3) at the first
    syntax, type or well-formedness error."""
    from kinduct.frontends.iospec.wellformed import check

    try:
        tree = _lark().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file) from None
    except RecursionError:
        raise InputError.at(f"the specification nests too deeply (more than {MAX_DEPTH} levels)",
                            file, text, 1, 1) from None
    builder = _Builder(text, file)
    spec = A.Spec(builder.seq(tree.children[0], 0), text, file)
    check(spec)
    return spec


def load(path: str | Path) -> A.Spec:
    """Read and parse a specification file."""
    text = read_source(Path(path))
    return parse(text, str(path))
