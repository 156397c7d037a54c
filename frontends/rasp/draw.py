"""Showing a compiled RASP program: the computation flow as text, and as a picture.

Like the REPL's ``draw(sop, input)``: layer by layer, the embeddings and feed-forward s-ops
with their values on the example input, and every attention head with its selector's pattern
on that input (query positions down, key positions across).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kinduct.frontends.rasp import ops
from kinduct.frontends.rasp.compiler import Flow
from kinduct.frontends.rasp.evaluate import Evaluator
from kinduct.frontends.rasp.nodes import Node


def fmt(v: Any) -> str:
    if isinstance(v, str):
        return v
    return ops.show(v)


def _row(values: Sequence[Any]) -> str:
    return " ".join(fmt(v) for v in values)


def flow_text(name: str, flow: Flow, tokens: Sequence[str] | None = None) -> str:
    ev = Evaluator(tokens) if tokens is not None else None
    lines = [f"{name}: {flow.layers} layer{'s' * (flow.layers != 1)}, heads per layer "
             f"{flow.heads_per_layer}"]
    if tokens is not None:
        lines.append(f"input: {' '.join(tokens)}")

    def show_node(prefix: str, node: Node) -> None:
        text = f"{prefix}{node.label()}"
        if node.name:
            text += f" = {node.expr()}"
        if ev is not None:
            text += f"    [{_row(ev(node))}]"
        lines.append(text)

    lines.append("layer 0 (embedding)")
    for node in flow.inputs:
        show_node("  X  ", node)
    for node in flow.feedforward.get(0, []):
        show_node("  FF ", node)
    for layer, heads in enumerate(flow.heads, start=1):
        lines.append(f"layer {layer}")
        for h, head in enumerate(heads):
            sel = head.selector
            lines.append(f"  head {h}: {sel.label()}" + (f" = {sel.expr()}" if sel.name else ""))
            if ev is not None:
                matrix = ev(sel)
                for i, row in enumerate(matrix):
                    lines.append(f"      q{i:<2} " + "".join("#" if x else "." for x in row))
            for agg in head.aggregates:
                show_node("    -> ", agg)
        for node in flow.feedforward.get(layer, []):
            show_node("  FF ", node)
    return "\n".join(lines)


def flow_picture(name: str, flow: Flow, out: Path, tokens: Sequence[str] | None = None) -> None:
    """One panel per head, grouped by layer; the selection pattern on the input when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ev = Evaluator(tokens) if tokens is not None else None
    n_layers = max(flow.layers, 1)
    width = max([len(h) for h in flow.heads] + [1])
    fig, axes = plt.subplots(n_layers, width, figsize=(3.2 * width, 3.2 * n_layers), squeeze=False)
    for ax_row in axes:
        for ax in ax_row:
            ax.axis("off")
    for layer, heads in enumerate(flow.heads):
        for h, head in enumerate(heads):
            ax = axes[layer][h]
            aggs = ", ".join(a.label() for a in head.aggregates)
            title = f"layer {layer + 1}, head {h}: {head.selector.label()}\n-> {aggs}"
            ax.set_title(title if len(title) < 90 else title[:87] + "...", fontsize=7)
            if ev is not None and tokens:
                matrix = [[1.0 if x else 0.0 for x in row] for row in ev(head.selector)]
                ax.axis("on")
                ax.imshow(matrix, cmap="Blues", vmin=0, vmax=1)
                ax.set_xticks(range(len(tokens)), labels=list(tokens), fontsize=7)
                ax.set_yticks(range(len(tokens)), labels=list(tokens), fontsize=7)
                ax.set_xlabel("key", fontsize=7)
                ax.set_ylabel("query", fontsize=7)
            else:
                ax.text(0.5, 0.5, head.selector.expr(), ha="center", va="center", fontsize=7,
                        wrap=True)
    if not flow.heads:
        axes[0][0].text(0.5, 0.5, f"{name}: no attention (feed-forward only)", ha="center")
    fig.suptitle(f"{name}: {flow.layers} layers, heads per layer {flow.heads_per_layer}"
                 + (f"  on {''.join(tokens)!r}" if tokens else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
