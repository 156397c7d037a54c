"""The builtins every RASP program sees: base s-ops, ``select``, ``aggregate``, the paper's
elementwise ``pow`` and ``pairwise_mul`` (section 2), ``score`` and ``select_best`` (appendix
B.2) and a few constant helpers (``range``, ``len``, ``zip``).  Everything else lives in
``stdlib.rasp``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.nodes import Loc, Node, Scorer

if TYPE_CHECKING:
    from kinduct.frontends.rasp.interp import Interpreter, Source

MAX_RANGE = 100_000


def install_builtins(self: Interpreter) -> None:
    """Base s-ops, True/False, select, aggregate and the small builtins, in ``self.base``."""
    from kinduct.frontends.rasp.interp import Builtin, OpArg, type_name

    g = self.graph
    v = self.base.vars
    v["tokens"] = g.make("tokens", value="str")
    for conv in ("str", "int", "float", "bool", "asis"):
        v[f"tokens_{conv}"] = g.make("tokens", value=conv)
    v["indices"] = g.make("indices")
    v["True"] = True
    v["False"] = False

    def select(interp: Interpreter, loc: Loc, src: Source, key: Any, query: Any, op: Any) -> Node:
        if not isinstance(op, OpArg):
            raise interp.error("select needs a comparison (==, !=, <, <=, >, >=) as its third "
                               "argument", loc)
        for what, x in (("key", key), ("query", query)):
            if isinstance(x, Node) and x.is_selector:
                raise interp.error(f"select's {what} must be an s-op, not a selector", loc)
        nloc = interp.node_loc(loc, src)
        return interp.graph.make("select", op=op.op,
                                 args=(interp.lift(key, nloc), interp.lift(query, nloc)), loc=nloc)

    def aggregate(interp: Interpreter, loc: Loc, src: Source, sel: Any, sop: Any, default: Any) -> Node:
        if not (isinstance(sel, Node) and sel.is_selector):
            raise interp.error(f"aggregate's first argument must be a selector, not a "
                               f"{type_name(sel)}", loc)
        if isinstance(sop, Node) and sop.is_selector:
            raise interp.error("aggregate's second argument must be an s-op, not a selector", loc)
        if isinstance(default, Node) or isinstance(default, (list, tuple, dict)):
            raise interp.error("aggregate's default must be a constant number, string or "
                               "boolean", loc)
        nloc = interp.node_loc(loc, src)
        return interp.graph.make("aggregate", args=(sel, interp.lift(sop, nloc)),
                                 value=ops.norm(default), loc=nloc)

    def unary(op: str) -> Callable[..., Any]:
        def fn(interp: Interpreter, loc: Loc, src: Source, x: Any) -> Any:
            return interp.mapped(op, [x], loc, src)
        return fn

    def binary(op: str) -> Callable[..., Any]:
        def fn(interp: Interpreter, loc: Loc, src: Source, x: Any, y: Any) -> Any:
            return interp.mapped(op, [x, y], loc, src)
        return fn

    def score(interp: Interpreter, loc: Loc, src: Source, key: Any, query: Any) -> Scorer:
        for what, x in (("key", key), ("query", query)):
            if isinstance(x, Node) and x.is_selector or isinstance(x, Scorer):
                raise interp.error(f"score's {what} must be an s-op or a number, not a "
                                   f"{type_name(x)}", loc)
        nloc = interp.node_loc(loc, src)
        return Scorer(interp.lift(key, nloc), interp.lift(query, nloc))

    def select_best(interp: Interpreter, loc: Loc, src: Source, sel: Any, scorer: Any) -> Node:
        if not (isinstance(sel, Node) and sel.is_selector):
            raise interp.error(f"select_best's first argument must be a selector, not a "
                               f"{type_name(sel)}", loc)
        if not isinstance(scorer, Scorer):
            raise interp.error(f"select_best's second argument must be a scorer, score(key, "
                               f"query), not a {type_name(scorer)}", loc)
        return interp.graph.make("select_best", args=(sel, scorer.key, scorer.query),
                                 loc=interp.node_loc(loc, src))

    def length_of(interp: Interpreter, loc: Loc, src: Source, x: Any) -> Any:
        if isinstance(x, Node):
            raise interp.error("len() takes a constant list; the length of the input is the "
                               "s-op 'length'", loc)
        try:
            return len(x)
        except TypeError:
            raise interp.error(f"len() of a {type_name(x)}", loc) from None

    def range_(interp: Interpreter, loc: Loc, src: Source, a: Any, b: Any, step: Any) -> Any:
        vals = [x for x in (a, b, step) if x is not None]
        if any(isinstance(x, bool) or not isinstance(x, int) for x in vals):
            raise interp.error("range() takes constant integers", loc)
        if step == 0:
            raise interp.error("range() step must not be zero", loc)
        if len(range(*vals)) > MAX_RANGE:
            raise interp.error(f"range() of more than {MAX_RANGE} numbers", loc)
        return list(range(*vals))

    def zip_(interp: Interpreter, loc: Loc, src: Source, a: Any, b: Any) -> Any:
        if isinstance(a, Node) or isinstance(b, Node):
            raise interp.error("zip() takes constant lists", loc)
        return [list(p) for p in zip(a, b, strict=False)]

    def draw(interp: Interpreter, loc: Loc, src: Source, sop: Any, example: Any) -> None:
        return None  # drawing is `kinduct rasp draw`; in files it is a no-op

    v["select"] = Builtin("select", select, ("key", "query", "op"))
    v["aggregate"] = Builtin("aggregate", aggregate, ("sel", "sop", "default"), {"default": 0})
    for op in ("indicator", "round", "abs", "floor"):
        v[op] = Builtin(op, unary(op), ("x",))
    v["pow"] = Builtin("pow", binary("^"), ("x", "y"))
    v["pairwise_mul"] = Builtin("pairwise_mul", binary("*"), ("x", "y"))
    v["score"] = Builtin("score", score, ("key", "query"))
    v["select_best"] = Builtin("select_best", select_best, ("sel", "scorer"))
    v["len"] = Builtin("len", length_of, ("x",))
    v["range"] = Builtin("range", range_, ("a", "b", "step"), {"b": None, "step": None})
    v["zip"] = Builtin("zip", zip_, ("a", "b"))
    v["draw"] = Builtin("draw", draw, ("sop", "example"), {"example": None})


