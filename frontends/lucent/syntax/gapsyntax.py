"""The parse-tree callbacks of Kind 2 syntax variants the rest of the grammar lacks (grammar in
``lucent.lark``), built into existing AST nodes:

* ghost variables defined together, ``var a, b: int, c: bool = e;`` (a :class:`~.ast.
  ContractItem` of kind ``vars``; one name alone stays an ordinary ``var`` item);
* a frame block's initial values assigned together, ``(y1, y2) = N(0);`` or ``y1, y2 = N(0);``
  (an :class:`~.ast.Equation` as the value of the ``%tuple`` initialisation);
* several updates at once, ``r[f := a; g := b]``, which nest left to right (the later wins);
  a record's field and a tuple's component are updated the same way (:mod:`.structural`);
* array concatenation ``a | b`` and slices ``a[i..j]`` (:class:`~.ast.Concat`,
  :class:`~.ast.Slice`).

``parser._Builder`` inherits them."""

from __future__ import annotations

from lark import Token, Transformer, v_args

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.ast import Concat, Slice
from kinduct.frontends.lucent.syntax.positions import meta_pos
from kinduct.kernel.errors import InputError


@v_args(meta=True)
class GapSyntax(Transformer):
    """Callbacks for the syntax variants above, called by rule (or alias) name."""

    file: str
    text: str

    def ghost_names(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        names, texpr = items
        return [(n, texpr, p) for n, p in names]

    def ghost_var(self, meta, items):
        *groups, expr = items
        ghosts = [g for group in groups for g in group]
        if len(ghosts) == 1:
            name, texpr, pos = ghosts[0]
            return A.ContractItem("var", name, pos, expr=expr, type_expr=texpr)
        return A.ContractItem("vars", ghosts[0][0], ghosts[0][2], expr=expr, ghosts=ghosts)

    def frame_inits(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        *lhs, rhs = items
        for name, pos, indices in lhs:
            if indices:
                raise InputError.at(f"'{name}[...]': an array element cannot be initialised "
                                    "together with other variables", self.file, self.text,
                                    pos.line, pos.col)
        eq = A.Equation([(name, pos) for name, pos, _ in lhs], rhs, meta_pos(meta))
        return ("init", naming.TUPLE_INIT, eq, meta_pos(meta))

    def append(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return Concat("|", items[0], items[2], pos=meta_pos(meta))

    def slice(self, meta, items):  # noqa: V105 - a lark callback, called by rule name
        return Slice(items[0], items[1], items[2], pos=meta_pos(meta))

    def update(self, meta, items):
        acc = items[0]
        rest = [i for i in items[1:] if not isinstance(i, Token)]
        for k in range(0, len(rest), 2):
            acc = A.Update(acc, rest[k], rest[k + 1], pos=meta_pos(meta))
        return acc
