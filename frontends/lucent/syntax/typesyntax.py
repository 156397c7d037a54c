"""The parse-tree callbacks of Lucent's types (grammar in ``lucent.lark``): named, machine,
subrange, subtype, enumerated, record, tuple and array types, and the machine-integer
conversions, extractions and ``!`` that go with machine types."""

from __future__ import annotations

from lark import Token, Transformer, v_args

from kinduct.frontends.lucent.core import ast as A
from kinduct.frontends.lucent.core import machine
from kinduct.frontends.lucent.syntax.positions import meta_pos
from kinduct.kernel.errors import InputError


@v_args(meta=True)
class TypeSyntax(Transformer):
    """Callbacks for types, called by rule name (``self.file``/``self.text``: the parser's)."""

    def base_type(self, meta, items):
        return A.TypeExpr("name", (str(items[0]),), meta_pos(meta))

    def machine_type(self, meta, items):
        return A.TypeExpr("machine", (machine.machine(*self._machine(meta, items)),), meta_pos(meta))

    def mtype(self, meta, items):
        return str(items[0])

    def _machine(self, meta, items) -> tuple[bool, int]:
        """(signed, width) of ``int8`` … ``uint64``, ``sint<N>``/``uint<N>`` or ``sint@<N>``."""
        if isinstance(items[0], str) and not isinstance(items[0], Token):  # a concise name
            t = machine.NAMES[items[0]]
            return machine.signed(t), t.size
        width = next(t for t in items if isinstance(t, Token) and t.type == "NUMBER")
        n = int(width)
        if not 1 <= n <= machine.MAX_WIDTH:
            raise InputError.at(f"machine integer width {n} is outside kinduct's limits of 1 to "
                                f"{machine.MAX_WIDTH} bits", self.file, self.text, width.line,
                                width.column)
        return items[0].type == "SINT", n

    def machine_conv(self, meta, items):
        signed, width = self._machine(meta, items[:-1])
        op = machine.conversion_op(machine.machine(signed, width))
        return A.Unop(op, items[-1], pos=meta_pos(meta))

    def extract(self, meta, items):
        hi, lo = int(items[1]), int(items[2])
        return A.Unop(machine.extract_op(hi, lo), items[0], pos=meta_pos(meta))

    def bvnot(self, meta, items):
        return A.Unop("bvnot", items[1], pos=meta_pos(meta))

    def subrange_type(self, meta, items):
        return A.TypeExpr("subrange", (items[0], items[1]), meta_pos(meta))

    def bound(self, meta, items):
        return None if isinstance(items[0], Token) else items[0]

    def subtype_type(self, meta, items):
        return A.TypeExpr("subtype", (str(items[0]), items[1], items[2]), meta_pos(meta))

    def enum_type(self, meta, items):
        return A.TypeExpr("enum", tuple(n for n, _ in items[0]), meta_pos(meta))

    def struct_type(self, meta, items):
        fields = [f for group in items for f in group]
        return A.TypeExpr("struct", tuple(fields), meta_pos(meta))

    def field_decl(self, meta, items):
        return [(n, items[1]) for n, _ in items[0]]

    def tuple_type(self, meta, items):
        return A.TypeExpr("tuple", tuple(items), meta_pos(meta))

    def array_type(self, meta, items):
        return A.TypeExpr("array", (items[0], items[1]), meta_pos(meta))
