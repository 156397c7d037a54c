"""The scoring evaluator of the search: hash-consed, cached, vectorised over the data set.

Simulated annealing proposes ~10^5 programs that differ from their predecessor in one rule, and
most subexpressions (``#('a')``, ``#[1,1]('b')``, a comparison of two counts) recur thousands of
times.  So every subexpression is *interned*: a rule reference is replaced by the id of the
referenced rule's definition, and a node's key is its operator plus its children's ids.  Equal
keys mean equal values on the data, so values are cached per id.  Scoring a mutated program
re-interns its rules (cheap dictionary work) and computes arrays only for subexpressions never
seen before — exactly the mutated rule and its dependents, as in ``vectorized.update_rules``,
but also reusing everything the search evaluated in earlier iterations.

Layout: ``(L, B)`` arrays (position-major, one column per word), so ``#`` is a ``cumsum`` along
axis 0; the deciding rule is only needed at each word's last position, so its top-level
Boolean/arithmetic structure is evaluated on ``(B,)`` vectors gathered from its operands.
Semantics are those of ``kinduct.frontends.crasp.vectorized`` (tests compare the two).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp.synthesis.facts import references

INT = np.int32  # default integer type; 16 bits when the caller bounds every value (twice as fast)
_MAX_CACHE = 700  # full (L, B) arrays kept; ~70-140 MB for 1,000 words of length 100

_BINARY = {A.And: "&", A.Or: "|", A.Add: "+", A.Sub: "-", A.Min: "min", A.Max: "max"}
_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}
_OPS = {"&": np.logical_and, "|": np.logical_or, "+": np.add, "-": np.subtract, "min": np.minimum,
        "max": np.maximum}
#: Node kinds whose value at the last position needs the whole column (prefix sums, letters).
_POSITIONAL = {"L", "P", "#", "W"}


class Scorer:
    """Evaluate programs on a fixed list of words; ``mis(program)`` counts misclassifications."""

    def __init__(self, words: Sequence[Sequence[str]], labels: Sequence[bool],
                 alphabet: Sequence[str], bound: int | None = None) -> None:
        """``bound``: the largest absolute value any counting expression can take on these
        words (the search knows it from its shape); below 2**15 arrays use 16-bit integers."""
        self.int = np.int16 if bound is not None and bound < 2**15 - 1 else INT
        self.alphabet = tuple(alphabet)
        index = {a: i for i, a in enumerate(self.alphabet)}
        self.n = len(words)
        width = max([len(w) for w in words] + [1])
        letters = np.full((width, self.n), -1, dtype=np.int16)
        lengths = np.zeros(self.n, dtype=np.int64)
        for col, w in enumerate(words):
            letters[: len(w), col] = [index[a] for a in w]
            lengths[col] = len(w)
        self.shape = letters.shape
        self.letters = letters
        self.lengths = lengths
        self.nonempty = lengths > 0
        self.labels = np.asarray(labels, dtype=bool)
        self._last_row = np.maximum(lengths - 1, 0)
        self._cols = np.arange(self.n)
        self._positions = np.arange(1, width + 1, dtype=self.int)[:, None]
        self._valid = np.arange(width)[:, None] < lengths[None, :]
        self._masks: dict[tuple[int, int], np.ndarray] = {}
        self._ids: dict[tuple, int] = {}
        self._nodes: list[tuple] = []
        self._full: dict[int, np.ndarray | np.generic] = {}
        self._last: dict[int, np.ndarray | np.generic] = {}
        self._rule_ids: dict[int, tuple[A.Expr, tuple[str, ...], dict[tuple[int, ...], int]]] = {}
        self._mis: dict[int, int] = {}
        self._closed: dict[int, tuple[A.Expr, int]] = {}
        self.evaluations = 0

    # --- interning ------------------------------------------------------------------------

    def _id(self, key: tuple) -> int:
        got = self._ids.get(key)
        if got is None:
            got = len(self._nodes)
            self._ids[key] = got
            self._nodes.append(key)
        return got

    def intern(self, e: A.Expr, env: Mapping[str, int]) -> int:
        """The id of ``e`` where rule names mean the ids in ``env``; a subexpression reading no
        rule has the same id in every program, so it is remembered by object identity (mutated
        right-hand sides share all subexpressions off the mutated path with their parent)."""
        if type(e) is A.Ref:
            return env[e.name]
        got = self._closed.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        i = self._intern(e, env)
        if not references(e):
            if len(self._closed) > 200_000:
                self._closed.clear()
            self._closed[id(e)] = (e, i)
        return i

    def _intern(self, e: A.Expr, env: Mapping[str, int]) -> int:
        t = type(e)
        if t is A.Letter:
            return self._id(("L", e.letter))
        if t is A.IntConst:
            return self._id(("K", e.value))
        if t is A.BoolConst:
            return self._id(("T", e.value))
        if t is A.Period:
            return self._id(("P", e.modulus, e.offset))
        if t is A.Not:
            return self._id(("!", self.intern(e.arg, env)))
        if t is A.Compare:
            return self._id(("C", e.op, self.intern(e.left, env), self.intern(e.right, env)))
        if t is A.Count:
            return self._id(("#", self.intern(e.arg, env)))
        if t is A.Window:
            return self._id(("W", e.start, e.end, self.intern(e.arg, env)))
        if t is A.Cond:
            return self._id(("?", self.intern(e.cond, env), self.intern(e.then, env),
                             self.intern(e.other, env)))
        op = _BINARY.get(t)
        if op is None:
            raise TypeError(f"not a C-RASP expression: {e!r}")
        return self._id((op, self.intern(e.left, env), self.intern(e.right, env)))

    def program_ids(self, program: A.Program) -> dict[str, int]:
        """Rule name -> node id.  A right-hand side object is interned once per combination of
        the ids of the rules it reads: successive candidates share all rules but one."""
        env: dict[str, int] = {}
        cache = self._rule_ids
        for r in program.rules:
            e = r.expr
            got = cache.get(id(e))
            if got is None or got[0] is not e:
                if len(cache) > 100_000:
                    cache.clear()
                got = (e, tuple(sorted(references(e))), {})
                cache[id(e)] = got
            key = tuple(env[n] for n in got[1])
            i = got[2].get(key)
            if i is None:
                i = got[2][key] = self.intern(e, env)
            env[r.name] = i
        return env

    # --- values ---------------------------------------------------------------------------

    def full(self, i: int):
        """Value of node ``i`` at every position: an ``(L, B)`` array or a numpy scalar."""
        got = self._full.get(i)
        if got is not None:
            return got
        key = self._nodes[i]
        tag = key[0]
        self.evaluations += 1
        if tag == "L":
            idx = self.alphabet.index(key[1]) if key[1] in self.alphabet else -2
            val = self.letters == idx
        elif tag == "K":
            val = self.int(key[1])
        elif tag == "T":
            val = np.bool_(key[1])
        elif tag == "P":
            val = np.broadcast_to(self._positions % key[1] == key[2], self.shape)
        elif tag == "!":
            val = np.logical_not(self.full(key[1]))
        elif tag == "C":
            val = _CMP[key[1]](self.full(key[2]), self.full(key[3]))
        elif tag == "#":
            val = self._prefix_sums(self.full(key[1]))
        elif tag == "W":
            val = self._window(self._array(self.full(key[3])), key[1], key[2])
        elif tag == "?":
            val = np.where(self.full(key[1]), self.full(key[2]), self.full(key[3]))
        else:
            val = _OPS[tag](self.full(key[1]), self.full(key[2]))
        if isinstance(val, np.ndarray) and val.dtype != bool and val.dtype != self.int:
            val = val.astype(self.int)
        if len(self._full) >= _MAX_CACHE:
            for k in list(self._full)[: _MAX_CACHE // 2]:
                del self._full[k]
        self._full[i] = val
        return val

    def _array(self, v) -> np.ndarray:
        return v if isinstance(v, np.ndarray) else np.broadcast_to(v, self.shape)

    def _prefix_sums(self, v) -> np.ndarray:
        """``cumsum`` along positions, as row additions: numpy's strided ``cumsum`` is several
        times slower on these short, wide arrays."""
        out = np.array(self._array(v), dtype=self.int)
        for i in range(1, self.shape[0]):
            np.add(out[i - 1], out[i], out=out[i])
        return out

    def _window(self, b: np.ndarray, start: int, end: int) -> np.ndarray:
        width = self.shape[0]
        padded = np.zeros((width + 1, self.n), dtype=self.int)
        padded[1:] = self._prefix_sums(b)
        j = np.arange(1, width + 1)
        return padded[np.clip(j - start, 0, None)] - padded[np.clip(j - end - 1, 0, None)]

    def last(self, i: int):
        """Value of node ``i`` at each word's last position: ``(B,)`` array or scalar."""
        got = self._last.get(i)
        if got is not None:
            return got
        key = self._nodes[i]
        tag = key[0]
        if tag in ("K", "T"):
            val = self.full(i)
        elif tag == "#" and i not in self._full:
            # only the total is needed: a masked sum instead of prefix sums
            val = np.logical_and(self.full(key[1]), self._valid).sum(axis=0, dtype=self.int)
        elif tag == "W" and i not in self._full:
            seen = np.logical_and(self.full(key[3]), self._window_mask(key[1], key[2]))
            val = seen.sum(axis=0, dtype=self.int)
        elif tag in _POSITIONAL:
            val = self._array(self.full(i))[self._last_row, self._cols]
        elif tag == "!":
            val = np.logical_not(self.last(key[1]))
        elif tag == "C":
            val = _CMP[key[1]](self.last(key[2]), self.last(key[3]))
        elif tag == "?":
            val = np.where(self.last(key[1]), self.last(key[2]), self.last(key[3]))
        else:
            val = _OPS[tag](self.last(key[1]), self.last(key[2]))
        if len(self._last) >= 20 * _MAX_CACHE:
            self._last.clear()
        self._last[i] = val
        return val

    def _window_mask(self, start: int, end: int) -> np.ndarray:
        """Positions ``last-end .. last-start`` of each word (what a window sees at the end)."""
        got = self._masks.get((start, end))
        if got is None:
            rows = np.arange(self.shape[0])[:, None]
            last = self.lengths[None, :] - 1
            got = (rows >= last - end) & (rows <= last - start) & (rows >= 0)
            self._masks[(start, end)] = got
        return got

    # --- programs -------------------------------------------------------------------------

    def accepted(self, program: A.Program) -> np.ndarray:
        """Per word: accepted by ``program``?"""
        return self._accepted(self.program_ids(program)[program.deciding.name])

    def _accepted(self, i: int) -> np.ndarray:
        out = self.last(i)
        if isinstance(out, np.ndarray):
            return np.logical_and(out, self.nonempty)
        return self.nonempty.copy() if out else np.zeros(self.n, dtype=bool)

    def mis(self, program: A.Program) -> int:
        """Misclassified words; known at once for a deciding rule whose node was scored before
        (the search proposes the same acceptance condition many times)."""
        i = self.program_ids(program)[program.deciding.name]
        got = self._mis.get(i)
        if got is None:
            got = self._mis[i] = int(np.count_nonzero(self._accepted(i) != self.labels))
        return got
