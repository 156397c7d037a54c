"""Bench results: the CSV (written row by row, so an interrupted run can ``--resume``) and the
summary per configuration (plots are in :mod:`~kinduct.plugins.bench.plots`)."""

from __future__ import annotations

import csv
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path

from kinduct.kernel.errors import InputError
from kinduct.plugins.bench.tasks import COLUMNS, DEFINITIVE


class CsvLog:
    """Appends rows and flushes after each task."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        fresh = not (resume and path.exists() and path.stat().st_size > 0)
        try:
            self.file = path.open("w" if fresh else "a", newline="")
        except OSError as exc:
            raise InputError(f"{path}: cannot write the CSV: {exc.strerror}") from None
        self.writer = csv.DictWriter(self.file, fieldnames=COLUMNS, extrasaction="ignore")
        if fresh:
            self.writer.writeheader()
            self.file.flush()

    def write(self, rows: Iterable[dict]) -> None:
        self.writer.writerows({**r, "wrong": "true" if r["wrong"] else "false"} for r in rows)
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def read_rows(path: Path) -> list[dict]:
    """Rows of an earlier run (for ``--resume``), typed as the bench produces them."""
    if not path.exists():
        return []
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            missing = set(COLUMNS) - set(reader.fieldnames or ())
            if missing:
                raise InputError(f"{path}: not a bench CSV (missing columns: "
                                 f"{', '.join(sorted(missing))})")
            rows = []
            for r in reader:
                r = {c: r.get(c, "") for c in COLUMNS}
                r["wrong"] = r["wrong"].strip().lower() == "true"
                try:
                    r["time"] = float(r["time"])
                except ValueError:
                    r["time"] = 0.0
                rows.append(r)
            return rows
    except (OSError, csv.Error, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the CSV: {exc}") from None


def solved(row: dict) -> bool:
    return row["verdict"] in DEFINITIVE and not row["wrong"]


def summarise(rows: Sequence[dict], timeout: float) -> list[dict]:
    """Per configuration (engine, solver): decided, wrong, unknown, error, PAR-2 and median
    time.  PAR-2 charges a correct answer its time and anything else (unknown, error, wrong)
    twice the timeout; it is the sum over the configuration's rows."""
    configs: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        configs.setdefault((r["engine"], r["solver"]), []).append(r)
    out = []
    for (engine, solver), group in sorted(configs.items()):
        good = [r["time"] for r in group if solved(r)]
        out.append({
            "engine": engine, "solver": solver, "rows": len(group),
            "decided": sum(r["verdict"] in DEFINITIVE for r in group),
            "wrong": sum(bool(r["wrong"]) for r in group),
            "unknown": sum(r["verdict"] == "unknown" for r in group),
            "error": sum(r["verdict"] == "error" for r in group),
            "par2": round(sum(r["time"] if solved(r) else 2 * timeout for r in group), 2),
            "median": round(statistics.median(good), 3) if good else None,
        })
    return out


def print_summary(console, summary: Sequence[dict], title: str) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col, justify in (("engine", "left"), ("solver", "left"), ("rows", "right"),
                         ("decided", "right"), ("wrong", "right"), ("unknown", "right"),
                         ("error", "right"), ("PAR-2 (s)", "right"), ("median (s)", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for s in summary:
        wrong = f"[bold red]{s['wrong']}[/]" if s["wrong"] else "0"
        table.add_row(s["engine"], s["solver"], str(s["rows"]), str(s["decided"]), wrong,
                      str(s["unknown"]), str(s["error"]), f"{s['par2']:.2f}",
                      "-" if s["median"] is None else f"{s['median']:.3f}")
    console.print(table)
