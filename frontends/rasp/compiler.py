"""Compiling an s-op to transformer layers and attention heads (paper, section 3.1).

- ``tokens``, ``indices`` and constants are the input embedding (layer 0).
- An elementwise operation is feed-forward: it sits in the earliest layer holding all of its
  inputs and costs no layer.
- An aggregate is an attention head, placed one layer after everything it reads: its values
  and every s-op its selector compares.
- Aggregates in the same layer with the same selector share one head (selectors are
  hash-consed, so "the same" means structurally equal).

``selector_width`` is ordinary library code (Figure 9), so its one or two heads are counted
like any other aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kinduct.frontends.rasp.nodes import Node, walk


@dataclass
class Head:
    layer: int
    selector: Node
    aggregates: list[Node] = field(default_factory=list)


@dataclass
class Flow:
    target: Node
    layer_of: dict[int, int]
    heads: list[list[Head]]                # heads[l - 1]: the heads of layer l
    feedforward: dict[int, list[Node]]     # layer -> elementwise nodes computed there
    inputs: list[Node]                     # embeddings used (tokens, indices)

    @property
    def layers(self) -> int:
        return len(self.heads)

    @property
    def heads_per_layer(self) -> list[int]:
        return [len(h) for h in self.heads]

    def summary(self) -> dict:
        return {"layers": self.layers, "heads_per_layer": self.heads_per_layer}


def selector_inputs(sel: Node) -> list[Node]:
    """The s-ops a selector compares (through and/or/not)."""
    if sel.kind == "select":
        return list(sel.args)
    if sel.kind == "select_best":  # its selector's inputs and the score's key and query
        return selector_inputs(sel.args[0]) + list(sel.args[1:])
    out: list[Node] = []
    for a in sel.args:
        out.extend(selector_inputs(a))
    return out


def compile_flow(target: Node) -> Flow:
    layer: dict[int, int] = {}
    for node in walk([target]):
        k = node.kind
        if k in ("tokens", "indices", "const"):
            layer[node.uid] = 0
        elif k == "map":
            layer[node.uid] = max((layer[a.uid] for a in node.args), default=0)
        elif node.is_selector:
            layer[node.uid] = max((layer[a.uid] for a in selector_inputs(node)), default=0)
        elif k == "aggregate":
            sel, values = node.args
            layer[node.uid] = 1 + max(layer[sel.uid], layer[values.uid])
        else:  # pragma: no cover
            raise AssertionError(k)
    n_layers = max((layer[n.uid] for n in walk([target]) if n.kind == "aggregate"), default=0)
    heads: list[list[Head]] = [[] for _ in range(n_layers)]
    feedforward: dict[int, list[Node]] = {}
    inputs: list[Node] = []
    for node in walk([target]):
        if node.kind == "aggregate":
            row = heads[layer[node.uid] - 1]
            sel = node.args[0]
            for head in row:
                if head.selector is sel:
                    head.aggregates.append(node)
                    break
            else:
                row.append(Head(layer[node.uid], sel, [node]))
        elif node.kind == "map":
            feedforward.setdefault(layer[node.uid], []).append(node)
        elif node.kind in ("tokens", "indices"):
            inputs.append(node)
    return Flow(target, layer, heads, feedforward, inputs)
