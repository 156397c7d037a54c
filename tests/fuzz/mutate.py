"""Mutating example models and running them through the CLI in-process (issue 21's fuzz test).

:func:`mutations` is a hypothesis strategy of :class:`Mutation` (byte flips, truncation,
duplicated and deleted lines, deep nesting, huge literals, stray syntax characters) applied to
the bytes of an example model; :func:`run_case` writes the mutant, runs ``kinduct`` on it in
this process and returns an :class:`Outcome`; :meth:`Outcome.problem` says what is wrong with
it, if anything: an exit code outside {0, 20, 30, 40, 2, 3}, a ``Traceback`` on stderr, an
internal error, or an input error without ``file:line:col``.

The commands stop right after loading where they can, so that a case costs milliseconds:
``check FILE --property <none>`` loads the model, runs the frontend's static checks and the
translation, then stops on the unknown property name (that message is the expected end, not
an input error); ``rasp draw FILE SOP ab`` runs and compiles the program's last s-op.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Sequence
from pathlib import Path

import attrs
from hypothesis import strategies as st

from kinduct.kernel.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

#: Exit codes a run may end with: verdicts (0, 20, 30, 40) and input/usage errors (2, 3).
ALLOWED_EXIT = frozenset({0, 20, 30, 40, 2, 3})
_LOCATED = re.compile(r"^kinduct: .+:\d+:\d+: error: ", re.MULTILINE)
#: Errors about the command line that are the expected end of a parse-only run.
_AFTER_LOADING = ("no property named '__fuzz_none__'", "no s-op named")
NO_PROPERTY = "__fuzz_none__"


def examples(frontends: Sequence[str]) -> list[Path]:
    """The example models of the given frontends (``vmt``, ``crasp``, ``rasp``, ``lucent``)."""
    ext = {"vmt": "*.vmt", "crasp": "*.crasp", "rasp": "*.rasp", "lucent": "*.lus"}
    out: list[Path] = []
    for fe in frontends:
        out += sorted((EXAMPLES / fe).rglob(ext[fe]))
    return out


@attrs.frozen
class Mutation:
    kind: str
    position: float  # 0..1, relative to the text
    size: int
    byte: int

    def apply(self, data: bytes) -> bytes:
        n = len(data)
        at = min(n, int(self.position * n))
        lines = data.split(b"\n")
        line = min(len(lines) - 1, int(self.position * len(lines)))
        if self.kind == "flip":
            return data[:at] + bytes([self.byte]) + data[at + 1:]
        if self.kind == "truncate":
            return data[:at]
        if self.kind == "duplicate-line":
            return b"\n".join(lines[: line + 1] + [lines[line]] * self.size + lines[line + 1:])
        if self.kind == "delete-line":
            return b"\n".join(lines[:line] + lines[line + self.size:])
        if self.kind == "nest":
            opener = [b"(", b"not ", b"[", b"-", b"(ite true "][self.byte % 5]
            return data[:at] + opener * self.size + data[at:]
        if self.kind == "nest-balanced":
            word = re.search(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", data[at:])
            if word is None:
                return data
            s, e = at + word.start(), at + word.end()
            return data[:s] + b"(" * self.size + data[s:e] + b")" * self.size + data[e:]
        if self.kind == "huge-literal":
            digits = re.search(rb"[0-9]+", data[at:]) or re.search(rb"[0-9]+", data)
            big = b"9" * (self.size * 20)
            if digits is None:
                return data[:at] + big + data[at:]
            s = (at if digits.re is not None and data[at:].find(digits.group()) >= 0 else 0)
            s += digits.start()
            return data[:s] + big + data[s + len(digits.group()):]
        if self.kind == "syntax":
            chars = b"()[]{};:,=<>+-*/#'\"|!?@\\\t\r\x00\xff"
            return data[:at] + bytes([chars[self.byte % len(chars)]]) * (1 + self.size % 3) + data[at:]
        raise ValueError(self.kind)


KINDS = ("flip", "truncate", "duplicate-line", "delete-line", "nest", "nest-balanced",
         "huge-literal", "syntax")


def mutations() -> st.SearchStrategy[list[Mutation]]:
    one = st.builds(Mutation, kind=st.sampled_from(KINDS),
                    position=st.floats(0, 1, allow_nan=False),
                    size=st.one_of(st.integers(1, 5), st.integers(100, 3000)),
                    byte=st.integers(0, 255))
    return st.lists(one, min_size=1, max_size=3)


@attrs.frozen
class Outcome:
    command: tuple[str, ...]
    code: int | str
    stderr: str

    def problem(self) -> str | None:
        """What is wrong with this run, or None."""
        if "Traceback" in self.stderr:
            return "a traceback on stderr"
        if "internal error" in self.stderr:
            return "an internal error"
        if self.code not in ALLOWED_EXIT:
            return f"exit code {self.code}"
        if self.code in (2, 3) and not any(m in self.stderr for m in _AFTER_LOADING) \
                and not _LOCATED.search(self.stderr):
            return "an input error without file:line:col"
        return None


def command(path: Path, original: Path) -> list[str]:
    if path.suffix == ".rasp":
        names = re.findall(r"^([A-Za-z_]\w*)\s*=", original.read_text(), re.MULTILINE)
        return ["rasp", "draw", str(path), names[-1] if names else "tokens", "ab"]
    return ["check", str(path), "--property", NO_PROPERTY]


def run_case(original: Path, mutants: Sequence[Mutation], workdir: Path,
             commands=command) -> Outcome:
    data = original.read_bytes()
    for m in mutants:
        data = m.apply(data)
    path = workdir / original.name
    path.write_bytes(data)
    argv = commands(path, original)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | str = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return Outcome(tuple(argv), code, err.getvalue())
