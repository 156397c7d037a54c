"""Node calls nested deeper than kinduct's limit (500 levels below the analysed node) are a
located input error at the first call past the limit (exit 3), not an internal error from
Python's recursion limit; a chain of exactly 500 levels loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-c", "import sys; from kinduct.script import main; sys.exit(main())"]


def chain(levels: int) -> str:
    """``top`` calls ``n1``, which calls ``n2``, ... down to ``n{levels}``."""
    parts = ["node top(x: int) returns (y: int);\nlet\n  y = n1(x);\n  check y >= 0 or y < 0;\ntel\n"]
    for i in range(1, levels):
        parts.append(f"node n{i}(x: int) returns (y: int);\nlet\n  y = n{i + 1}(x) + 1;\ntel\n")
    parts.append(f"node n{levels}(x: int) returns (y: int);\nlet\n  y = x;\ntel\n")
    return "".join(parts)


def run(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "chain.lus"
    path.write_text(text)
    return subprocess.run([*CLI, "check", str(path), "--only-parse"], capture_output=True,
                          text=True, timeout=300)


def test_a_chain_at_the_limit_loads(tmp_path: Path) -> None:
    proc = run(tmp_path, chain(500))
    assert proc.returncode == 0, proc.stderr


def test_a_chain_past_the_limit_is_a_located_error(tmp_path: Path) -> None:
    text = chain(501)
    proc = run(tmp_path, text)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = text.splitlines()
    # the call of n501, in n500's body, is the 501st level below top
    line = next(i for i, s in enumerate(lines, 1) if "n501(x)" in s)
    col = lines[line - 1].index("n501(x)") + 1
    first = proc.stderr.strip().splitlines()[0]
    assert first == (f"kinduct: {tmp_path / 'chain.lus'}:{line}:{col}: error: node calls nest more "
                     "than 500 levels deep below 'top' (kinduct's limit)")
