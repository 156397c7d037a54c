"""Bench plots: a cactus plot (one line per configuration) and a scatter plot of per-model
times of two configurations (log scale)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kinduct.kernel.errors import InputError
from kinduct.plugins.bench.report import solved


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'kinduct[plot]'") from None
    return plt


def _save(fig, plt, out: Path) -> None:
    fig.tight_layout()
    try:
        fig.savefig(out)
    except OSError as exc:
        raise InputError(f"{out}: cannot write the plot: {exc.strerror}") from None
    finally:
        plt.close(fig)


def cactus_series(rows: Sequence[dict]) -> dict[str, list[float]]:
    """Per configuration, the sorted times of its correct answers: the n-th point is the time
    the n-th fastest solved instance took."""
    series: dict[str, list[float]] = {}
    for r in rows:
        label = f"{r['engine']} / {r['solver']}"
        series.setdefault(label, [])
        if solved(r):
            series[label].append(float(r["time"]))
    return {k: sorted(v) for k, v in series.items()}


def cactus_plot(rows: Sequence[dict], out: Path, title: str, timeout: float) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    for label, times in sorted(cactus_series(rows).items()):
        ax.step(range(1, len(times) + 1), times, where="post", marker=".", label=label)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("instances solved")
    ax.set_ylabel("time per instance (s)")
    ax.set_yscale("log")
    ax.axhline(timeout, color="grey", linestyle=":", linewidth=1)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    _save(fig, plt, out)


def model_times(rows: Sequence[dict]) -> dict[str, dict[str, tuple[float, bool]]]:
    """Per configuration, per model: (time, solved).  A model is solved when every one of its
    rows is; its time is the longest of its rows' times."""
    out: dict[str, dict[str, tuple[float, bool]]] = {}
    for r in rows:
        label = f"{r['engine']} / {r['solver']}"
        time, ok = out.setdefault(label, {}).get(r["file"], (0.0, True))
        out[label][r["file"]] = (max(time, float(r["time"])), ok and solved(r))
    return out


def scatter_pair(rows: Sequence[dict], external: frozenset[str]) -> tuple[str, str] | None:
    """The two configurations to plot: the first kinduct one (x) against the first one whose
    solver is in ``external`` (y), else the first two."""
    labels = sorted({(r["solver"] in external, f"{r['engine']} / {r['solver']}") for r in rows})
    ours = [label for ext, label in labels if not ext]
    theirs = [label for ext, label in labels if ext]
    if ours and theirs:
        return ours[0], theirs[0]
    every = [label for _, label in labels]
    return (every[0], every[1]) if len(every) >= 2 else None


def scatter_plot(rows: Sequence[dict], out: Path, title: str, timeout: float,
                 external: frozenset[str] = frozenset()) -> None:
    """Per-model times, x against y; a model a configuration did not solve sits at the
    timeout (hollow marker), so points on the right or top edge are unsolved."""
    pair = scatter_pair(rows, external)
    if pair is None:
        raise InputError("--scatter needs two configurations (e.g. --solver z3,kind2)")
    plt = _pyplot()
    times = model_times(rows)
    xs, ys = times[pair[0]], times[pair[1]]
    models = sorted(set(xs) & set(ys))
    floor = 0.1
    fig, ax = plt.subplots(figsize=(5.5, 5.5), dpi=110)
    for both, marker in ((True, "o"), (False, "x")):
        pts = [(max(floor, xs[m][0] if xs[m][1] else timeout),
                max(floor, ys[m][0] if ys[m][1] else timeout))
               for m in models if (xs[m][1] and ys[m][1]) == both]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, s=14, alpha=0.7,
                       label="solved by both" if both else "unsolved by one or both")
    ax.plot([floor, timeout], [floor, timeout], color="grey", linewidth=1, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor, timeout * 1.3)
    ax.set_ylim(floor, timeout * 1.3)
    ax.set_xlabel(f"{pair[0]} time per model (s)")
    ax.set_ylabel(f"{pair[1]} time per model (s)")
    ax.set_title(title, fontsize="small")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    _save(fig, plt, out)
