"""The paper's Lustre encoding of C-RASP queries (section 0.3.2 and appendix .7), in Kind 2 syntax.

One node reads the integer stream ``I``: a word ``a1..an`` is ``ι(a1)..ι(an) ι(#) ι(Ω) ι(Ω)...``
with ``ι`` the letter's index, ``#`` = |Σ| and ``Ω`` = |Σ|+1.  ``B_I`` checks the input is
well formed, ``B_hat`` that it has been so far; every rule ``X`` of program ``A`` becomes
``A_X`` (``#`` subterms through ``C_e = if e then 1 else 0`` and ``C = C_e -> pre(C) + C_e``),
and the check inspects the rules one step after the end marker (``pre``).

Departures from the paper's text, where it has slips (DESIGN §7): the position counter starts
at 1 (``P = 1 -> pre(P) + 1``), windows sum ``pre^i`` for ``rs <= i <= re``, and ``B_I``
requires a letter of Σ' at every step (the paper's arrow drops that conjunct after step 0).

Names: a rule ``X`` of side A is ``A_X``; the generated names (``B_I``, ``B_hat``, ``A_n1``,
``A_c2``, ``A_outside``, ...) take a trailing ``_`` while they clash with a rule's name, so every
program gives valid Lustre (a rule named ``I`` or ``hat`` included).  A rule name written with
the paper's subscript (``C_{[}``, ``C_[``) is spelled as an identifier (``A_C_open``), stepping
aside like a generated name.

Public API: :func:`to_lustre` ``(query, a, b=None) -> str``.
"""

from __future__ import annotations

import re

from kinduct.frontends.crasp import ast as A

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPELL = {"[": "open", "]": "close", "{": "", "}": ""}


def _spelled(name: str) -> str:
    """A rule name as a Lustre identifier (subscript brackets spelled out)."""
    return "".join(c if c.isalnum() or c == "_" else _SPELL.get(c, f"x{ord(c):x}") for c in name)


def _unique(base: str, taken: set[str]) -> str:
    """``base`` with ``_`` appended until it is not in ``taken`` (which then holds it)."""
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


class _Emitter:
    def __init__(self, program: A.Program, tag: str, alphabet: tuple[str, ...],
                 taken: set[str], names: dict[str, str]) -> None:
        self.p = program
        self.names = names  # rule name -> Lustre identifier
        self.tag = tag
        self.alphabet = alphabet
        self.taken = taken  # every name in the node so far (rule names first)
        self.locals: list[tuple[str, str]] = []
        self.equations: list[str] = []
        self.cache: dict[A.Expr, str] = {}
        self.uses_position = False
        self.position = "P"  # the position counter's name (set by to_lustre)
        self.n = 0

    def fresh(self, kind: str, type_: str) -> str:
        self.n += 1
        name = _unique(f"{self.tag}_{kind}{self.n}", self.taken)
        self.locals.append((name, type_))
        return name

    def expr(self, e: A.Expr) -> str:
        got = self.cache.get(e)
        if got is None:
            got = self._expr(e)
            self.cache[e] = got
        return got

    def _expr(self, e: A.Expr) -> str:
        if isinstance(e, A.BoolConst):
            return "true" if e.value else "false"
        if isinstance(e, A.IntConst):
            return str(e.value)
        if isinstance(e, A.Letter):
            return f"(I = {self.alphabet.index(e.letter)})"
        if isinstance(e, A.Ref):
            return self.names[e.name]
        if isinstance(e, A.Not):
            return f"(not {self.expr(e.arg)})"
        if isinstance(e, A.And):
            return f"({self.expr(e.left)} and {self.expr(e.right)})"
        if isinstance(e, A.Or):
            return f"({self.expr(e.left)} or {self.expr(e.right)})"
        if isinstance(e, A.Compare):
            op = {"!=": "<>"}.get(e.op, e.op)
            return f"({self.expr(e.left)} {op} {self.expr(e.right)})"
        if isinstance(e, A.Period):
            self.uses_position = True
            return f"(({self.position} mod {e.modulus}) = {e.offset})"
        if isinstance(e, (A.Count, A.Window)):
            ind = self.fresh("n", "int")
            self.equations.append(f"{ind} = if {self.expr(e.arg)} then 1 else 0;")
            total = self.fresh("c", "int")
            if isinstance(e, A.Count):
                self.equations.append(f"{total} = {ind} -> pre({total}) + {ind};")
            else:
                terms = [_pre(ind, i) for i in range(e.start, e.end + 1)]
                self.equations.append(f"{total} = {' + '.join(terms)};")
            return total
        if isinstance(e, A.Add):
            return f"({self.expr(e.left)} + {self.expr(e.right)})"
        if isinstance(e, A.Sub):
            return f"({self.expr(e.left)} - {self.expr(e.right)})"
        if isinstance(e, (A.Min, A.Max)):
            left, right = self.expr(e.left), self.expr(e.right)
            first, second = (left, right) if isinstance(e, A.Min) else (right, left)
            return f"(if {left} <= {right} then {first} else {second})"
        if isinstance(e, A.Cond):
            return f"(if {self.expr(e.cond)} then {self.expr(e.then)} else {self.expr(e.other)})"
        raise TypeError(f"not a C-RASP expression: {e!r}")

    def run(self) -> None:
        for r in self.p.rules:
            value = self.expr(r.expr)
            name = self.names[r.name]
            self.locals.append((name, "bool" if r.kind is A.Kind.BOOL else "int"))
            self.equations.append(f"{name} = {value};")

    @property
    def output(self) -> str:
        return self.names[self.p.deciding.name]


def _pre(x: str, i: int) -> str:
    """The paper's safe ``pre^i``: 0 where fewer than i earlier positions exist."""
    out = x
    for _ in range(i):
        out = f"(0 -> pre {out})"
    return out


def to_lustre(query: str, a: A.Program, b: A.Program | None = None) -> str:
    """A Kind 2 Lustre node whose single ``check`` is valid iff the query's answer is yes."""
    if (query in ("include", "equiv")) != (b is not None):
        raise ValueError(f"the {query} query takes {'two programs' if b is None else 'one program'}")
    alphabet = tuple(dict.fromkeys(a.alphabet + (b.alphabet if b is not None else ())))
    end, omega = len(alphabet), len(alphabet) + 1
    programs = [("A", a)] + ([("B", b)] if b is not None else [])
    # rule names first, so that generated names step aside; then the fixed names
    taken = {f"{tag}_{r.name}" for tag, p in programs for r in p.rules if _IDENT.fullmatch(r.name)}
    taken |= {"I", "ok", "END", "OMEGA", f"crasp_{query}"}
    names = {tag: {r.name: f"{tag}_{r.name}" if _IDENT.fullmatch(r.name)
                   else _unique(f"{tag}_{_spelled(r.name)}", taken) for r in p.rules}
             for tag, p in programs}
    b_i, b_hat = _unique("B_I", taken), _unique("B_hat", taken)
    pos = _unique("P", taken)
    sides = [_Emitter(p, tag, alphabet, taken, names[tag]) for tag, p in programs]
    for s in sides:
        s.position = pos
        s.run()
    v1 = f"pre({sides[0].output})"
    v2 = f"pre({sides[1].output})" if b is not None else None
    # A side whose alphabet lacks a letter of the word rejects it (the kernel's convention).
    own = []
    for s in sides:
        missing = [i for i, x in enumerate(alphabet) if x not in s.p.alphabet]
        if missing:
            name = _unique(f"{s.tag}_outside", taken)
            cond = " or ".join(f"I = {i}" for i in missing)
            s.locals.append((name, "bool"))
            s.equations.append(f"{name} = ({cond}) or (false -> pre {name});")
            own.append((s.tag, name))
    for tag, name in own:
        if tag == "A":
            v1 = f"({v1} and not pre({name}))"
        else:
            v2 = f"({v2} and not pre({name}))"
    ended = f"({b_hat} and I = END)"
    goal = {
        "empty": f"not {v1}",
        "universal": v1,
        "include": f"(not {v1} or {v2})",
        "equiv": f"(({v1} and {v2}) or (not {v1} and not {v2}))",
    }[query]
    names = [f"'{x}' = {i}" for i, x in enumerate(alphabet)]
    lines = [
        f"-- C-RASP {query} query, the encoding of the C-RASP paper (section 0.3.2)",
        f"-- letters: {', '.join(names)}; end of word # = {end}; eternity Ω = {omega}",
        f"const END: int = {end};",
        f"const OMEGA: int = {omega};",
        "",
        f"node crasp_{query}(I: int) returns (ok: bool);",
        "var",
        f"  {b_i}: bool;",
        f"  {b_hat}: bool;",
    ]
    if any(s.uses_position for s in sides):
        lines.append(f"  {pos}: int;")
    for s in sides:
        for name, type_ in s.locals:
            lines.append(f"  {name}: {type_};")
    lines += [
        "let",
        "  --%MAIN;",
        f"  {b_i} = (0 <= I and I <= OMEGA) and ((I <> OMEGA) -> (pre (I >= END) => I = OMEGA));",
        f"  {b_hat} = {b_i} -> ({b_i} and pre {b_hat});",
    ]
    if any(s.uses_position for s in sides):
        lines.append(f"  {pos} = 1 -> pre {pos} + 1;")
    for s in sides:
        lines += [f"  {eq}" for eq in s.equations]
    lines += [
        f"  ok = true -> (not {ended} or {goal});",
        f'  check "{query}" ok;',
        "tel",
    ]
    return "\n".join(lines) + "\n"
