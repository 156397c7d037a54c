"""Showing a compiled RASP program: the computation flow as text, and as a picture.

Like the REPL's ``draw(sop, input)``: layer by layer, the embeddings and feed-forward s-ops
with their values on the example input, and every attention head with its selector's pattern
on that input (query positions down, key positions across).
"""

from __future__ import annotations

import textwrap
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


def _title(text: str, width: int) -> str:
    """``text`` wrapped to lines of about ``width`` characters: never clipped."""
    return "\n".join(textwrap.fill(part, width, break_long_words=True, break_on_hyphens=False)
                     for part in text.splitlines())


def flow_picture(name: str, flow: Flow, out: Path, tokens: Sequence[str] | None = None) -> None:
    """One panel per head, grouped by layer.

    With an input, a panel is the selection pattern on it (query positions down, key positions
    across) with each query position's aggregated value(s) on the right; without one, a panel
    is a compact text box with the selector and its aggregates.  Titles are wrapped, never
    clipped, and only heads get panels (no empty cells)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ev = Evaluator(tokens) if tokens else None
    n_layers = max(flow.layers, 1)
    width = max([len(h) for h in flow.heads] + [1])
    side = 3.4 if ev is not None else 2.6
    height = 3.6 if ev is not None else 1.6
    fig, axes = plt.subplots(n_layers, width, figsize=(side * width + 1.0, height * n_layers + 0.6),
                             squeeze=False)
    used: set[tuple[int, int]] = set()
    for layer, heads in enumerate(flow.heads):
        for h, head in enumerate(heads):
            used.add((layer, h))
            ax = axes[layer][h]
            aggs = ", ".join(a.label() for a in head.aggregates)
            title = f"layer {layer + 1}, head {h}: {head.selector.label()}\n-> {aggs}"
            ax.set_title(_title(title, int(side * 14)), fontsize=7)
            if ev is not None and tokens:
                _pattern(ax, ev, head, tokens)
            else:
                ax.axis("off")
                body = head.selector.expr() + "".join(f"\n-> {a.expr() if a.name else a.label()}"
                                                      for a in head.aggregates)
                ax.text(0.5, 0.5, _title(body, int(side * 14)), ha="center", va="center",
                        fontsize=7, transform=ax.transAxes,
                        bbox={"boxstyle": "round", "facecolor": "#eef3fb", "edgecolor": "#5577aa"})
    for layer, row in enumerate(axes):
        for h, ax in enumerate(row):
            if (layer, h) not in used and (flow.heads or (layer, h) != (0, 0)):
                fig.delaxes(ax)
    if not flow.heads:
        ax = axes[0][0]
        ax.axis("off")
        ax.text(0.5, 0.5, f"{name}: no attention (feed-forward only)", ha="center", va="center",
                transform=ax.transAxes)
    shown = "" if not tokens else \
        f"  on {''.join(tokens)!r}" if all(len(t) == 1 for t in tokens) else f"  on [{', '.join(tokens)}]"
    fig.suptitle(_title(f"{name}: {flow.layers} layers, heads per layer {flow.heads_per_layer}{shown}",
                        int((side * width + 1.0) * 12)), fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _pattern(ax, ev: Evaluator, head, tokens: Sequence[str]) -> None:
    """The head's selection matrix with every query position's aggregated values at its right."""
    n = len(tokens)
    matrix = [[1.0 if x else 0.0 for x in row] for row in ev(head.selector)]
    ax.imshow(matrix, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(n), labels=list(tokens), fontsize=7)
    ax.set_yticks(range(n), labels=list(tokens), fontsize=7)
    ax.set_xlabel("key", fontsize=7)
    ax.set_ylabel("query", fontsize=7)
    columns = [ev(a) for a in head.aggregates]
    for q in range(n):
        text = " | ".join(fmt(col[q]) for col in columns)
        ax.text(n - 0.3, q, text, va="center", ha="left", fontsize=6, clip_on=False)
    if columns:
        ax.text(n - 0.3, -0.9, "value", va="bottom", ha="left", fontsize=6, style="italic",
                clip_on=False)
