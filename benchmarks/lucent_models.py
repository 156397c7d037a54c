"""Random well-typed Lucent models for the differential fuzz run against Kind 2 (issue 41).

``generate(seed)`` returns one model's text.  A model has a subrange type, one to three helper
nodes or functions (some with a contract of assumptions, guarantees and modes; some with
several outputs) and a top node ``Top`` over int/real/bool inputs, a subrange input and an
``int^3`` array with a free index.  Its locals are random expressions (``pre``/``->``, ``if``,
``div``/``mod`` by variables and literals, out-of-range array reads, several instances of each
helper), an ``if`` block, counters, and three to six named ``check`` properties (some
``check reachable``): random Boolean expressions (mostly falsifiable within a few steps),
identities that hold (``e = e``, Euclidean division laws), counter invariants and bounds.
Caller arguments usually meet the callee's assumptions (an absolute value where ``>= 0`` is
assumed) but not always.  Every name is declared before use and every local is defined once,
its current-step reads only of earlier locals, so there is no circular definition.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INT, REAL, BOOL = "int", "real", "bool"


@dataclass
class Helper:
    """A generated helper node: its name, input types, output types and assumption kind."""

    name: str
    inputs: list[str]
    outputs: list[str]
    nonneg_first: bool  # assumes its first (int) input >= 0
    function: bool


@dataclass
class Scope:
    """The names an expression may read at the current step, by type."""

    names: dict[str, list[str]] = field(default_factory=lambda: {INT: [], REAL: [], BOOL: []})
    arrays: list[str] = field(default_factory=list)
    helpers: list[Helper] = field(default_factory=list)
    temporal: bool = True


class Gen:
    """One model's random choices."""

    def __init__(self, seed: int, arraydefs: bool = False) -> None:
        self.rng = random.Random(seed)
        self.arraydefs = arraydefs

    # -- expressions -----------------------------------------------------------------------
    def lit(self, ty: str) -> str:
        r = self.rng
        if ty == INT:
            v = r.choice([0, 1, 2, 3, 5, 7, 10, -1, -3, -7])
            return f"({v})" if v < 0 else str(v)
        if ty == REAL:
            v = r.choice(["0.0", "1.0", "2.5", "0.5", "10.0", "(-1.5)"])
            return v
        return r.choice(["true", "false"])

    def leaf(self, ty: str, sc: Scope) -> str:
        names = sc.names[ty]
        if names and self.rng.random() < 0.8:
            return self.rng.choice(names)
        return self.lit(ty)

    def expr(self, ty: str, sc: Scope, depth: int) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(ty, sc)
        d = depth - 1
        if ty == INT:
            choice = r.choices(
                ["add", "sub", "mul", "div", "mod", "neg", "if", "pre", "arr", "call"],
                [3, 2, 1, 2, 2, 1, 2, 2, 2, 1])[0]
            if choice == "add":
                return f"({self.expr(INT, sc, d)} + {self.expr(INT, sc, d)})"
            if choice == "sub":
                return f"({self.expr(INT, sc, d)} - {self.expr(INT, sc, d)})"
            if choice == "mul":
                return f"({self.lit(INT)} * {self.expr(INT, sc, d)})"
            if choice in ("div", "mod"):
                op = "div" if choice == "div" else "mod"
                return f"({self.expr(INT, sc, d)} {op} {self.leaf(INT, sc)})"
            if choice == "neg":
                return f"(- {self.expr(INT, sc, d)})"
            if choice == "arr" and sc.arrays:
                return f"{r.choice(sc.arrays)}[{self.leaf(INT, sc)}]"
            if choice == "call":
                call = self.call(INT, sc, d)
                if call:
                    return call
        elif ty == REAL:
            choice = r.choices(["add", "sub", "mul", "div", "neg", "if", "pre"],
                               [3, 2, 1, 1, 1, 2, 2])[0]
            if choice == "add":
                return f"({self.expr(REAL, sc, d)} + {self.expr(REAL, sc, d)})"
            if choice == "sub":
                return f"({self.expr(REAL, sc, d)} - {self.expr(REAL, sc, d)})"
            if choice == "mul":
                return f"({self.lit(REAL)} * {self.expr(REAL, sc, d)})"
            if choice == "div":
                return f"({self.expr(REAL, sc, d)} / {self.leaf(REAL, sc)})"
            if choice == "neg":
                return f"(- {self.expr(REAL, sc, d)})"
        else:
            choice = r.choices(["cmp", "rcmp", "and", "or", "not", "imp", "xor", "if", "pre",
                                "call"], [4, 1, 2, 2, 1, 1, 1, 1, 2, 1])[0]
            if choice == "cmp":
                op = r.choice(["<", "<=", ">", ">=", "=", "<>"])
                return f"({self.expr(INT, sc, d)} {op} {self.expr(INT, sc, d)})"
            if choice == "rcmp":
                op = r.choice(["<", "<=", ">", ">="])
                return f"({self.expr(REAL, sc, d)} {op} {self.expr(REAL, sc, d)})"
            if choice in ("and", "or", "imp", "xor"):
                op = {"and": "and", "or": "or", "imp": "=>", "xor": "xor"}[choice]
                return f"({self.expr(BOOL, sc, d)} {op} {self.expr(BOOL, sc, d)})"
            if choice == "not":
                return f"(not {self.expr(BOOL, sc, d)})"
            if choice == "call":
                call = self.call(BOOL, sc, d)
                if call:
                    return call
        if choice == "if":
            return (f"(if {self.expr(BOOL, sc, d)} then {self.expr(ty, sc, d)} "
                    f"else {self.expr(ty, sc, d)})")
        if choice == "pre" and sc.temporal:
            return f"({self.lit(ty)} -> pre {self.expr(ty, sc, d)})"
        return self.leaf(ty, sc)

    def call(self, ty: str, sc: Scope, depth: int) -> str | None:
        fit = [h for h in sc.helpers if len(h.outputs) == 1 and h.outputs[0] == ty
               and (h.function or sc.temporal)]
        if not fit:
            return None
        h = self.rng.choice(fit)
        args = [self.arg(t, sc, depth, first=(k == 0 and h.nonneg_first))
                for k, t in enumerate(h.inputs)]
        return f"{h.name}({', '.join(args)})"

    def arg(self, ty: str, sc: Scope, depth: int, first: bool) -> str:
        e = self.expr(ty, sc, min(depth, 1))
        if first and self.rng.random() < 0.85:  # meet the callee's assumption `p >= 0`
            return f"(if {e} >= 0 then {e} else - {e})"
        return e

    # -- helpers ---------------------------------------------------------------------------
    def helper(self, k: int, earlier: list[Helper]) -> tuple[Helper, str]:
        r = self.rng
        function = r.random() < 0.35
        multi = not function and r.random() < 0.3
        kw = "function" if function else "node"
        name = f"{'F' if function else 'H'}{k}"
        inputs = [INT, r.choice([INT, BOOL]), r.choice([INT, REAL, BOOL])]
        params = ["p", "q", "t"]
        outputs = [INT, BOOL] if multi else [r.choice([INT, INT, BOOL])]
        outs = ["y", "z"][: len(outputs)]
        nonneg = r.random() < 0.6
        sc = Scope(temporal=not function, helpers=[h for h in earlier if h.function or not function])
        for p, t in zip(params, inputs, strict=True):
            sc.names[t].append(p)
        lines = [f"{kw} {name}({'; '.join(f'{p}: {t}' for p, t in zip(params, inputs, strict=True))}) "
                 f"returns ({'; '.join(f'{o}: {t}' for o, t in zip(outs, outputs, strict=True))});"]
        contract: list[str] = []
        if nonneg:
            contract.append("  assume p >= 0;")
        if r.random() < 0.6:
            gsc = Scope(temporal=not function)
            for p, t in zip(params, inputs, strict=True):
                gsc.names[t].append(p)
            for o, t in zip(outs, outputs, strict=True):
                gsc.names[t].append(o)
            for _ in range(r.randint(1, 2)):
                contract.append(f"  guarantee {self.guarantee(outs[0], outputs[0], gsc)};")
            if r.random() < 0.5:
                req = self.expr(BOOL, self.input_scope(params, inputs, function), 1)
                contract.append(f"  mode m1 ( require {req}; ensure {self.expr(BOOL, gsc, 1)}; );")
                contract.append("  mode m2 ( require not ::m1; ensure true; );")
        if contract:
            lines += ["con", *contract, "noc"]
        body_sc = Scope(temporal=not function, helpers=sc.helpers)
        for p, t in zip(params, inputs, strict=True):
            body_sc.names[t].append(p)
        lines.append("let")
        for o, t in zip(outs, outputs, strict=True):
            if t == INT and not function and r.random() < 0.5:
                e = (f"{self.lit(INT)} -> (if {self.expr(BOOL, body_sc, 1)} then pre {o} + "
                     f"{self.expr(INT, body_sc, 1)} else pre {o})")
            else:
                e = self.expr(t, body_sc, 3)
            lines.append(f"  {o} = {e};")
        lines.append("tel")
        return Helper(name, inputs, outputs, nonneg, function), "\n".join(lines)

    def input_scope(self, params: list[str], inputs: list[str], function: bool) -> Scope:
        sc = Scope(temporal=not function)
        for p, t in zip(params, inputs, strict=True):
            sc.names[t].append(p)
        return sc

    def guarantee(self, out: str, ty: str, sc: Scope) -> str:
        r = self.rng
        if ty == INT and r.random() < 0.5:
            return f"{out} {r.choice(['>=', '<=', '<>'])} {self.expr(INT, sc, 1)}"
        return self.expr(BOOL, sc, 2)

    # -- the model -------------------------------------------------------------------------
    def model(self) -> str:
        r = self.rng
        lo = r.choice([0, -5, 1])
        hi = lo + r.choice([3, 10, 20])
        parts = [f"type Small = subrange [{lo}, {hi}] of int;"]
        helpers: list[Helper] = []
        for k in range(r.randint(1, 3)):
            h, text = self.helper(k, helpers)
            helpers.append(h)
            parts.append(text)
        sc = Scope(helpers=helpers)
        ins = [("x", INT), ("w", INT), ("s", "Small"), ("b", BOOL), ("c", BOOL), ("v", REAL),
               ("u", REAL), ("a", "int^3"), ("i", INT)]
        for n, t in ins:
            if t == "int^3":
                sc.arrays.append(n)
            else:
                sc.names[INT if t == "Small" else t].append(n)
        decls: list[str] = []
        eqs: list[str] = []
        props: list[str] = []
        # locals: random expressions, current reads of earlier locals only
        for k in range(r.randint(3, 6)):
            ty = r.choice([INT, INT, INT, REAL, BOOL])
            name = f"l{k}"
            e = self.expr(ty, sc, 3)
            if ty != BOOL and r.random() < 0.3:
                e = f"{self.lit(ty)} -> pre {name} + {e}" if r.random() < 0.5 else e
            decls.append(f"{name}: {ty}")
            eqs.append(f"  {name} = {e};")
            sc.names[ty].append(name)
        # an aliased local of the subrange type (an obligation), and a local array
        if r.random() < 0.5:
            src = r.choice(["s", f"(if {self.expr(BOOL, sc, 1)} then s else {lo})"])
            decls.append("al: Small")
            eqs.append(f"  al = {src};")
            sc.names[INT].append("al")
        if r.random() < 0.5:
            decls.append("arr: int^3")
            eqs.append(f"  arr = [{self.expr(INT, sc, 1)}, {self.leaf(INT, sc)}, s];")
            sc.arrays.append("arr")
        # an array defined element by element by a helper's calls (one instance per element),
        # and a property comparing an element with a call of its own on the same arguments
        calls = [h for h in helpers if h.outputs == [INT]]
        checks: list[str] = []
        if self.arraydefs and calls:
            h = r.choice(calls)
            args = ["(if a[kk] >= 0 then a[kk] else - a[kk])" if j == 0 else
                    "(a[kk] + x)" if t == INT else self.expr(t, sc, 1)
                    for j, t in enumerate(h.inputs)]
            decls.append("ad: int^3")
            eqs.append(f"  ad[kk] = {h.name}({', '.join(args)});")
            j = r.randint(0, 2)
            same = ", ".join(arg.replace("kk", str(j)) for arg in args)
            checks.append(f"  check \"pad\" ad[{j}] = {h.name}({same});")
            sc.arrays.append("ad")
        # a counter and a saturating counter
        bound = r.randint(1, 4)
        decls += ["n: int", "m: int"]
        eqs.append(f"  n = 0 -> pre n + (if {self.expr(BOOL, sc, 1)} then 1 else 0);")
        eqs.append(f"  m = 0 -> if pre m < {bound} and {self.leaf(BOOL, sc)} then pre m + 1 else pre m;")
        sc.names[INT] += ["n", "m"]
        # multi-output helpers, called through an equation
        for h in helpers:
            if len(h.outputs) > 1 and r.random() < 0.8:
                k = len(decls)
                outs = [f"g{k}_{j}" for j in range(len(h.outputs))]
                decls += [f"{o}: {t}" for o, t in zip(outs, h.outputs, strict=True)]
                args = [self.arg(t, sc, 2, first=(j == 0 and h.nonneg_first))
                        for j, t in enumerate(h.inputs)]
                eqs.append(f"  ({', '.join(outs)}) = {h.name}({', '.join(args)});")
                for o, t in zip(outs, h.outputs, strict=True):
                    sc.names[t].append(o)
        # an if block defining the output and one more local
        decls.append("fb: int")
        eqs.append(f"  if {self.expr(BOOL, sc, 1)} then\n    o = {self.expr(INT, sc, 2)};\n"
                   f"    fb = {self.expr(INT, sc, 1)};\n  else\n    o = {self.expr(INT, sc, 2)};\n"
                   f"    fb = {self.leaf(INT, sc)};\n  fi")
        sc.names[INT] += ["o", "fb"]
        for k in range(r.randint(3, 6)):
            props.append(self.prop(k, sc, bound))
        props += checks
        top = ["node Top(x, w: int; s: Small; b, c: bool; v, u: real; a: int^3; i: int) "
               "returns (o: int);", f"var {'; '.join(decls)};", "let", *eqs, *props, "tel"]
        parts.append("\n".join(top))
        return "\n\n".join(parts) + "\n"

    def prop(self, k: int, sc: Scope, bound: int) -> str:
        r = self.rng
        kind = r.choices(["random", "same", "euclid", "counter", "sat", "reach", "array", "nodiv"],
                         [5, 3, 2, 1, 1, 2, 2, 1])[0]
        name = f"p{k}"
        if kind == "random":
            return f"  check \"{name}\" {self.expr(BOOL, sc, 3)};"
        if kind == "same":
            e = self.expr(INT, sc, 3)
            return f"  check \"{name}\" {e} = {e};"
        if kind == "euclid":
            e = self.expr(INT, sc, 2)
            d = self.leaf(INT, sc)
            law = r.choice([f"({e} div {d}) * {d} + ({e} mod {d}) = {e}",
                            f"({e} mod {d}) >= 0", f"({e} mod {d}) < {d} or {d} <= 0"])
            return f"  check \"{name}\" {d} <> 0 => {law};"
        if kind == "counter":
            return f"  check \"{name}\" n {r.choice(['>= 0', f'<= {bound}', '>= m - m'])};"
        if kind == "sat":
            return f"  check \"{name}\" m {r.choice(['<= ' + str(bound), '< ' + str(bound), '>= 0'])};"
        if kind == "reach":
            return f"  check reachable \"{name}\" {self.expr(BOOL, sc, 2)};"
        if kind == "array":
            arr = r.choice(sc.arrays)
            j = self.leaf(INT, sc)
            form = r.choice([f"{arr}[{j}] = {arr}[{j}]", f"i = {j} => {arr}[i] = {arr}[{j}]",
                             f"{arr}[{j}] {r.choice(['<=', '>='])} {self.expr(INT, sc, 1)}",
                             f"(0 -> pre {arr}[{j}]) = (0 -> pre {arr}[{j}])"])
            return f"  check \"{name}\" {form};"
        e1, d = self.expr(INT, sc, 1), self.leaf(INT, sc)
        return (f"  check \"{name}\" ({e1} div {d}) = ({e1} div {d}) and "
                f"(0 -> pre ({e1} mod {d})) = (0 -> pre ({e1} mod {d}));")


def generate(seed: int, arraydefs: bool = False) -> str:
    """The text of the model numbered ``seed`` (the same text for the same seed);
    ``arraydefs`` adds an array defined element by element by node calls (``ad[kk] = H(…)``)
    and a property comparing one element with its own call (off: the models of the runs
    reported in the note stay what they were)."""
    return Gen(seed, arraydefs).model()


if __name__ == "__main__":
    import sys

    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
