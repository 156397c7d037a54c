"""SMT-LIB regular expressions (the theory of strings, as cvc5 reads them) in a ``.regex`` file,
and the same constructors in the cvc5 paper's functional notation (its Table 1).

After the alphabet, an expression that starts with an SMT-LIB regex operator —
``(re.…``, ``(str.to_re …``, ``((_ re.loop …``/``((_ re.^ …``, or one of the constants
``re.none``, ``re.all``, ``re.allchar`` — is one SMT-LIB term (:func:`starts_smtlib`).
Constructors and their meaning over the file's alphabet Σ:

- ``re.none`` ∅, ``re.all`` Σ*, ``re.allchar`` any letter, ``(str.to_re "ab")`` the word ``ab``
  (``""`` the empty word; ``""`` inside a literal is one ``"``);
- ``(re.++ r …)``, ``(re.union r …)``, ``(re.inter r …)``, ``(re.diff r s …)`` (r minus the
  others), ``(re.* r)``, ``(re.+ r)``, ``(re.opt r)``, ``(re.comp r)`` (relative to Σ*);
- ``(re.range "a" "c")`` the letters of Σ from ``a`` to ``c`` (∅ when an end is not one
  character or ``a`` comes after ``c``, as SMT-LIB says);
- ``((_ re.loop i j) r)`` i to j copies of r (∅ when j < i), ``((_ re.^ n) r)`` n copies.

The paper's notation: ``rcon(star(to_re("a")), to_re("b"))`` — ``none``, ``to_re``, ``comp``,
``star``, ``rcon``, ``union``, ``inter`` (SMT-LIB's ``re.none str.to_re re.comp re.* re.++
re.union re.inter``) and ``ε``, arguments separated by commas; an expression starting with one
of these names and ``(`` (or that is ``none``) is read so.

Terms are built through the file's :class:`~kinduct.frontends.regex.terms.Algebra`, so they are
the same normalised terms the infix syntax builds.  Errors are located ``InputError`` values:
an unknown operator, a wrong number of arguments, a letter not in Σ, nesting deeper than the
parser's limit, loop counts above :data:`MAX_COUNT`, loops expanding beyond the parser's size
limit.  Comments start with ``;`` or ``--``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kinduct.frontends.regex.terms import EMPTY, EPS, TOP, Algebra, And, Cat, Not, Or, Star, Term
from kinduct.kernel.errors import InputError

#: Largest count of ``re.loop`` and ``re.^`` (each copy is a term node).
MAX_COUNT = 1000

_START = re.compile(r"\s*(\(\s*(re\.|str\.to_re\b|\(\s*_\s+re\.)|re\.(none|all|allchar)\b)")
_TOKEN = re.compile(r'\s*(?:(;[^\n]*|--[^\n]*)|(\()|(\))|("(?:[^"]|"")*")|([^\s()";,]+)|(,)|(\S))')
_LPAR, _RPAR, _STRING, _SYMBOL, _COMMA, _OTHER = range(2, 8)
#: The cvc5 paper's names (its Table 1) for the SMT-LIB constructors, written f(a, b).
_PAPER = {"none": "re.none", "to_re": "str.to_re", "comp": "re.comp", "star": "re.*",
          "rcon": "re.++", "union": "re.union", "inter": "re.inter", "ε": "ε"}
_PAPER_START = re.compile(r"\s*((rcon|star|union|inter|comp|to_re)\s*\(|none\s*$)")


class _Atom:
    """A symbol, numeral or string literal with its place."""

    __slots__ = ("text", "line", "col")

    def __init__(self, text: str, line: int, col: int) -> None:
        self.text = text
        self.line = line
        self.col = col


class _List:
    __slots__ = ("items", "line", "col")

    def __init__(self, line: int, col: int) -> None:
        self.items: list[_Atom | _List] = []
        self.line = line
        self.col = col


def starts_smtlib(text: str) -> bool:
    """Whether the expression ``text`` (after the alphabet) is an SMT-LIB term or one in the
    paper's functional notation."""
    return _START.match(text) is not None or _PAPER_START.match(text) is not None


class _Parser:
    def __init__(self, algebra: Algebra, text: str, offset: int, file: str | None,
                 max_depth: int, max_size: int) -> None:
        self.max_size = max_size
        self._sizes: dict[int, tuple[Term, int]] = {}  # id -> (term, nodes as printed)
        self.functional = _PAPER_START.match(text, offset) is not None
        self.R = algebra
        self.text = text
        self.offset = offset
        self.file = file
        self.max_depth = max_depth

    def error(self, message: str, line: int, col: int) -> InputError:
        return InputError.at(message, self.file, self.text, line, col)

    def place(self, pos: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, pos) + 1
        return line, pos - (self.text.rfind("\n", 0, pos) + 1) + 1

    def read(self) -> _Atom | _List:
        """The one term from ``offset`` to the end of the text: an s-expression, or in the
        paper's functional notation ``f(a, b)`` (read as ``(f a b)``)."""
        toks = []
        for m in _TOKEN.finditer(self.text, self.offset):
            if m.group(1):  # a comment
                continue
            start = m.start(m.lastindex)
            toks.append((m.lastindex, m.group(m.lastindex), *self.place(start)))
        stack: list[_List] = []
        done: _Atom | _List | None = None
        i = 0
        while i < len(toks):
            kind, text, line, col = toks[i]
            i += 1
            if done is not None:
                raise self.error("unexpected text after the term (one expression per file)",
                                 line, col)
            if kind == _OTHER or (kind == _COMMA and not self.functional):
                raise self.error(f"unexpected character {text!r}", line, col)
            if kind == _COMMA:
                if not stack or len(stack[-1].items) < 2 or toks[i - 2][0] == _COMMA:
                    raise self.error("unexpected ','", line, col)
                continue
            if self.functional and kind != _RPAR and stack and len(stack[-1].items) >= 2 \
                    and toks[i - 2][0] != _COMMA:
                raise self.error(f"missing ',' before {text!r} (arguments are separated by "
                                 "commas)", line, col)
            if self.functional and kind == _RPAR and toks[i - 2][0] == _COMMA:
                raise self.error("unexpected ')' after ','", line, col)
            opens = kind == _LPAR or (self.functional and kind == _SYMBOL and i < len(toks)
                                      and toks[i][0] == _LPAR)
            if opens:
                if kind == _LPAR and self.functional:
                    raise self.error("unexpected '(' (write f(a, b))", line, col)
                if len(stack) >= self.max_depth:
                    raise self.error(f"the regular expression nests deeper than {self.max_depth} "
                                     "levels", line, col)
                stack.append(_List(line, col))
                if kind == _SYMBOL:
                    stack[-1].items.append(_Atom(text, line, col))
                    i += 1
                continue
            if kind == _RPAR:
                if not stack:
                    raise self.error("unexpected ')'", line, col)
                node: _Atom | _List = stack.pop()
            else:
                node = _Atom(text, line, col)
            if stack:
                stack[-1].items.append(node)
            else:
                done = node
        if stack or done is None:
            line, col = self.place(len(self.text.rstrip()))
            raise self.error("unexpected end of input, expected ')'" if stack else
                             "unexpected end of input, expected an expression", line, col)
        return done

    # -- terms ---------------------------------------------------------------------------

    def term(self, node: _Atom | _List) -> Term:
        """The term of ``node``, refused when it prints to more than the size limit (``re.+``
        is ``r r*``: nested ones double it)."""
        built = self._term(node)
        if self._size(built) > self.max_size:
            raise self.error("the regular expression expands to too many terms (re.+ is r r*: "
                             "nested ones double it)", node.line, node.col)
        return built

    def _term(self, node: _Atom | _List) -> Term:
        R = self.R
        if isinstance(node, _Atom):
            consts = {"re.none": EMPTY, "re.all": TOP, "re.allchar": R.any(), "ε": EPS}
            name = _PAPER.get(node.text, node.text) if self.functional else node.text
            if name in consts:
                return consts[name]
            raise self.error(f"expected a regular expression, got {node.text!r}", node.line,
                             node.col)
        if not node.items:
            raise self.error("empty application '()'", node.line, node.col)
        head, args = node.items[0], node.items[1:]
        if isinstance(head, _List):
            return self._indexed(head, args, node)
        op = _PAPER.get(head.text, head.text) if self.functional else head.text
        shown = head.text
        if op == "str.to_re":
            self._arity(node, shown, args, 1, 1)
            return R.cat(*(R.chars([ch]) for ch in self._string(args[0], letters=True)))
        if op == "re.range":
            self._arity(node, shown, args, 2, 2)
            lo, hi = (self._string(a, letters=False) for a in args)
            if len(lo) != 1 or len(hi) != 1:
                return EMPTY
            return R.chars(x for x in R.alphabet if lo <= x <= hi)
        nary: dict[str, tuple[int, Callable[..., Term]]] = {
            "re.++": (1, R.cat), "re.union": (1, R.alt), "re.inter": (1, R.inter),
            "re.diff": (2, lambda first, *rest: R.inter(first, *(R.neg(r) for r in rest))),
            "re.*": (-1, R.star), "re.+": (-1, R.plus), "re.opt": (-1, R.opt),
            "re.comp": (-1, R.neg)}
        if op not in nary:
            raise self.error(f"unknown regular expression operator {shown!r}", head.line,
                             head.col)
        least, build = nary[op]
        if least < 0:
            self._arity(node, shown, args, 1, 1)
        else:
            self._arity(node, shown, args, least, None)
        return build(*(self.term(a) for a in args))

    def _indexed(self, head: _List, args: list[_Atom | _List], node: _List) -> Term:
        items = head.items
        names = [i.text if isinstance(i, _Atom) else None for i in items]
        if len(items) < 3 or names[0] != "_" or names[1] not in ("re.loop", "re.^"):
            raise self.error("expected an indexed operator (_ re.loop i j) or (_ re.^ n)",
                             head.line, head.col)
        op = names[1]
        counts = []
        for item in items[2:]:
            if not isinstance(item, _Atom) or not item.text.isdigit():
                raise self.error(f"{op} takes numerals", getattr(item, "line", head.line),
                                 getattr(item, "col", head.col))
            if int(item.text) > MAX_COUNT:
                raise self.error(f"{op} count {item.text} is too large (at most {MAX_COUNT})",
                                 item.line, item.col)
            counts.append(int(item.text))
        want = 2 if op == "re.loop" else 1
        if len(counts) != want:
            raise self.error(f"(_ {op} ...) takes {want} numeral(s), got {len(counts)}",
                             head.line, head.col)
        self._arity(node, op, args, 1, 1)
        body = self.term(args[0])
        lo, hi = (counts[0], counts[-1])
        if hi < lo:
            return EMPTY
        R = self.R
        if lo * self._size(body) + (hi - lo) * (self._size(body) + 2) > self.max_size:
            raise self.error(f"the regular expression expands to too many terms ({op} copies "
                             "its argument)", head.line, head.col)
        return R.cat(*([body] * lo), *([R.opt(body)] * (hi - lo)))

    def _size(self, term: Term) -> int:
        """Nodes of ``term`` counted as often as they are printed (shared ones too)."""
        got = self._sizes.get(id(term))
        if got is not None:
            return got[1]
        if isinstance(term, (Cat, Or, And)):
            kids: tuple[Term, ...] = term.parts
        elif isinstance(term, (Star, Not)):
            kids = (term.body,)
        else:
            kids = ()
        size = 1 + sum(self._size(k) for k in kids)
        self._sizes[id(term)] = (term, size)
        return size

    def _arity(self, node: _List, op: str, args: list, least: int, most: int | None) -> None:
        if len(args) < least or (most is not None and len(args) > most):
            want = (f"{least}" if least == most else
                    f"at least {least}" if most is None else f"{least} to {most}")
            raise self.error(f"{op} takes {want} argument(s), got {len(args)}", node.line,
                             node.col)

    def _string(self, node: _Atom | _List, letters: bool) -> str:
        if not isinstance(node, _Atom) or not node.text.startswith('"'):
            raise self.error("expected a string literal", node.line, node.col)
        value = node.text[1:-1].replace('""', '"')
        if letters:
            for k, ch in enumerate(value):
                if ch not in self.R.sigma:
                    shown = ", ".join(repr(x) for x in self.R.alphabet)
                    raise self.error(f"letter {ch!r} is not in the alphabet ({shown})", node.line,
                                     node.col + 1 + k)
        return value


def parse_term(algebra: Algebra, text: str, offset: int, file: str | None,
               max_depth: int, max_size: int) -> Term:
    """The SMT-LIB term of ``text`` from ``offset`` (after the alphabet) to its end; lists nest
    at most ``max_depth`` deep and ``re.loop``/``re.^`` build at most ``max_size`` nodes."""
    parser = _Parser(algebra, text, offset, file, max_depth, max_size)
    return parser.term(parser.read())

