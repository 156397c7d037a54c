"""The fast Lucent parser against lark, the reference (issue 35: a million-byte model loaded in
seconds): on every text lark parses, the fast path either declines it or gives the same syntax
tree, field by field, positions included; on every text lark refuses, the fast path declines, so
the error is lark's, word for word.

- a sample of the corpus (FMCAD08, Kind 2's tests, the examples, this suite's models, a
  generated model) in the default suite, the whole corpus in a slow test;
- generated expressions over every operator the fast path reads (precedence, associativity,
  unary minus over a product, conditionals whose ``else`` extends as far as it can, sampling),
  each of which it must take;
- texts with one token deleted, doubled, swapped or inserted: the outcome with the fast path on
  is the outcome with lark alone;
- the fast path is taken: on most of the corpus, and without importing lark.
"""

from __future__ import annotations

import dataclasses
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.frontends.lucent.syntax import parser
from kinduct.frontends.lucent.syntax.fastparse import parse_decls
from kinduct.frontends.lucent.syntax.larkparse import lark_decls
from kinduct.frontends.lucent.syntax.lexer import Decline, tokenize
from kinduct.kernel.errors import InputError
from tests.conftest import BENCH, EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from scale_models import gen_model  # noqa: E402

FMCAD = BENCH / "lustre" / "fmcad08"
KIND2 = [BENCH / "lustre" / "kind2-tests", BENCH / "lustre" / "kind2-regression"]


def dump(x: Any) -> Any:
    """A value as nested tuples of its class names and fields (the AST classes compare by
    identity)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, *((f.name, dump(getattr(x, f.name))) for f in dataclasses.fields(x)))
    if isinstance(x, list | tuple):
        return (type(x).__name__, *(dump(i) for i in x))
    if isinstance(x, dict):
        return ("dict", *((k, dump(v)) for k, v in x.items()))
    return (type(x).__name__, x)


def outcome(parse, text: str, file: str = "m.lus") -> Any:
    """What ``parse(text, file)`` gives: the dumped result, or the error's class and text."""
    try:
        return ("ok", dump(parse(text, file)))
    except InputError as exc:  # UnsupportedError included
        return ("error", type(exc).__name__, str(exc))


def compare(text: str, file: str) -> str:
    """``'taken'`` (same tree), ``'declined'``, or ``'refused'`` (lark refuses the text, and
    the fast path declines it); fails when the fast path disagrees with lark."""
    try:
        parser.check_unsupported(text, file)
    except InputError:  # refused before either parser runs
        return "refused"
    try:
        reference = lark_decls(text, file)
    except InputError:
        with pytest.raises(Decline):
            parse_decls(text, file)
        return "refused"
    try:
        fast = parse_decls(text, file)
    except Decline:
        return "declined"
    assert dump(fast) == dump(reference), f"{file}: the fast path's tree differs from lark's"
    return "taken"


def corpus() -> list[Path]:
    files = sorted(FMCAD.glob("*.lus"))
    for folder in KIND2:
        files += sorted(folder.rglob("*.lus"))
    files += sorted(EXAMPLES.rglob("*.lus")) + sorted((ROOT / "tests").rglob("*.lus"))
    return files


def run_corpus(files: list[Path]) -> dict[str, int]:
    counts = {"taken": 0, "declined": 0, "refused": 0}
    for f in files:
        counts[compare(f.read_text(encoding="utf-8", errors="replace"), str(f))] += 1
    return counts


@pytest.mark.skipif(not FMCAD.is_dir(), reason="the shared benchmarks are not here")
def test_corpus_sample_agrees_with_lark():
    files = corpus()
    counts = run_corpus(files[::37])
    counts_generated = compare(gen_model(20_000, "tree"), "gen.lus")
    assert counts_generated == "taken"
    # nearly all of the sample is taken, so agreement is not vacuous
    assert counts["taken"] >= 0.95 * (counts["taken"] + counts["declined"]), counts


@pytest.mark.slow
@pytest.mark.skipif(not FMCAD.is_dir(), reason="the shared benchmarks are not here")
def test_whole_corpus_agrees_with_lark():
    fmcad_files = sorted(FMCAD.glob("*.lus"))
    fmcad = run_corpus(fmcad_files)
    assert fmcad["taken"] == len(fmcad_files), fmcad
    counts = run_corpus([f for f in corpus() if f.parent != FMCAD])
    for mb, shape in ((0.3, "tree"), (0.1, "chain")):
        assert compare(gen_model(int(mb * 2**20), shape), "gen.lus") == "taken"
    print(counts)
    assert counts["taken"] >= 0.95 * (counts["taken"] + counts["declined"]), counts


#: A text with every construct the fast path reads (lark parses it too).
TOUR = """\
-- every construct the fast path reads
datatype Opt<T> = | None | Some(v: T);
datatype Color = Red | Green | Blue(level: int, on: bool);
type Pair<T; U> = struct { fst: T; snd: U };
type Nat = subtype { n: int | n >= 0 };
type S = set<int>;
type M = map<int, bool>;
type W = uint<12>;
type Idx = subrange [0, 3] of int;
type Tup = [int, bool];
const N: int = 4;
const A: int^N = [1, 2, 3, 4]; B = 0x1F;

contract Spec<T>(x: T) returns (y: T);
let
  var g: bool = true;
  const k: int = 2;
  assume weakly "pos" true;
  guarantee y = x;
  mode up (require "r" g; ensure true;);
  import Other(x) returns (y);
tel

node imported Ext(x: int) returns (y: int);

function id<T>(x: T) returns (y: T);
let y = x; tel

node Sub(c: bool; x: int) returns (y: int);
let y = x -> pre y + 1; tel

transparent node top(x: int; c: bool; o: Opt<int>; m: uint8) returns (y: int; z: bool);
(*@contract
  assume x > -1000;
  guarantee true;
  mode m1 (require c;);
*)
var a: int^4; t: [int, bool]; w: uint8; s: S; q: bool; r: int; f: Color;
const h = 3;
let
  a = [x, 1, 2, 3][0 := x; 1 := 2];
  t = '(x, c);
  w = uint8 x + m;
  s = {1, 2};
  q = match o with | None : false | Some(v) : v > 0 end and Some?(o);
  r = (activate Sub every c initial default (0))(c, x)
      + condact(c, Sub(c, x), 0) + (restart Sub every c)(c, x)
      + merge(c; 1; 2) + int (m[7:0]) + (x : int) + id@<int>(x);
  f = Blue(x, c);
  frame (y) y = 0;
  let
    if c then y = x; else y = h; fi
  tel
  when c then z = true; else z = false; end
  assert forall (i: int) i = i;
  check "p" any {v: int | v > 0} -> exists (j: int) j > x;
  check reachable x > 3 within 5;
  check c provided true;
  --%PROPERTY "named" y >= -1000 or a[0..1] = a[2..3] | a[0..1];
  --%MAIN;
tel
"""


def test_tour_is_taken_and_agrees():
    assert compare(TOUR, "tour.lus") == "taken"


# ---- generated expressions ----

NAMES = st.sampled_from(["x", "y", "b", "mode", "set", "c_1"])
LEAVES = st.one_of(NAMES, st.sampled_from(["0", "17", "1.5", ".5", "2e3", "0x1F", "true",
                                            "false", "::M::N"]))
BINARY = ["->", "=>", "==>", "or", "xor", "or else", "and", "and then", "<=", ">=", "<>", "<",
          ">", "=", "in", "+", "-", "*", "/", "div", "mod", "++", "||", "&&", "lsh", "rsh"]
UNARY = ["-", "not", "pre", "last", "int", "real", "current", "!"]
SPACE = st.sampled_from([" ", "  ", "\n", " -- note\n", " (* c *) ", " /* c */ "])


def _extend(sub: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(sub, sub)
    return st.one_of(
        st.builds(lambda ab, op, s: f"{ab[0]}{s}{op}{s}{ab[1]}", pair, st.sampled_from(BINARY), SPACE),
        st.builds(lambda a, op: f"{op} {a}", sub, st.sampled_from(UNARY)),
        st.builds(lambda a: f"({a})", sub),
        st.builds(lambda a, b, c, kw: f"{kw} {a} then {b} else {c}", sub, sub, sub,
                  st.sampled_from(["if", "when"])),
        st.builds(lambda a, b: f"{a}[{b}]", sub, sub),
        st.builds(lambda a: f"{a}.f", sub),
        st.builds(lambda a, n: f"{a}^{n}", sub, st.sampled_from(["3", "K", "(2)"])),
        st.builds(lambda args: f"f({', '.join(args)})", st.lists(sub, max_size=3)),
        st.builds(lambda args: f"[{', '.join(args)}]", st.lists(sub, min_size=1, max_size=3)),
        st.builds(lambda a, b: f"({a}, {b})", sub, sub),
        st.builds(lambda a, b: f"R {{ a = {a}; b = {b} }}", sub, sub),
        st.builds(lambda a, b: f"merge(c; {a}; {b})", sub, sub),
        st.builds(lambda a, b: f"merge c (true -> {a}) (false -> {b})", sub, sub),
        st.builds(lambda a, ck: f"({a} when {ck})", sub,
                  st.sampled_from(["c", "not c", "not (c)", "On(c)"])),
        st.builds(lambda a, b: f"{a} | {b}", sub, sub),
        st.builds(lambda a, b, c: f"{a}[{b} := {c}]", sub, sub, sub),
        st.builds(lambda a, b, c: f"{a}[{b}..{c}]", sub, sub, sub),
        st.builds(lambda a: f"{a}[7:0]", sub),
        st.builds(lambda a, t: f"{t} {a}", sub, st.sampled_from(["uint8", "int16", "sint@<5>"])),
        st.builds(lambda a, b: f"'({a}, {b})", sub, sub),
        st.builds(lambda a: f"({a} : int)", sub),
        st.builds(lambda a: f"C?({a})", sub),
        st.builds(lambda a, b: f"match {a} with | C(u, _) : {b} | D : {a} end", sub, sub),
        st.builds(lambda a, q: f"{q} (i: int; j: bool) {a}", sub, st.sampled_from(["forall", "exists"])),
        st.builds(lambda a, b: f"forall (i: int | {b}) {a}", sub, sub),
        st.builds(lambda a, b, q: f"{q} {{v: int | {a}}} -> {b}", sub, sub,
                  st.sampled_from(["any", "choose"])),
        st.builds(lambda args: f"{{{', '.join(args)}}}", st.lists(sub, max_size=2)),
        st.builds(lambda a, b: f"map[{a} := {b}]@<int, int>", sub, sub),
        st.builds(lambda a, b: f"(activate N every {a} initial default (0))({b})", sub, sub),
        st.builds(lambda a, b: f"condact({a}, N({b}), 0)", sub, sub),
        st.builds(lambda a: f"id@<int>({a})", sub),
    )


EXPRS = st.recursive(LEAVES, _extend, max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRS, EXPRS)
def test_generated_expressions_match_lark(e1, e2):
    text = f"node N(x: int) returns (y: int);\nlet\n  y = {e1};\n  check {e2};\ntel\n"
    result = compare(text, "gen.lus")
    # every construct generated is one the fast path reads: it must take what lark takes
    assert result in ("taken", "refused"), text


def test_precedence_examples():
    """A few trees written out, checked against the fast path's own output (not lark's)."""
    def rhs(e: str) -> Any:
        decls = parse_decls(f"node N() returns (y: int); let y = {e}; tel", "m.lus")
        return decls[0].body[0].rhs

    def shape(e: Any) -> Any:
        name = type(e).__name__
        if name == "Binop":
            return (shape(e.left), e.op, shape(e.right))
        if name == "Unop":
            return (e.op, shape(e.arg))
        if name == "Ite":
            return ("ite", shape(e.cond), shape(e.then), shape(e.orelse))
        return getattr(e, "name", getattr(e, "value", name))

    assert shape(rhs("a - b - c")) == (("a", "-", "b"), "-", "c")
    assert shape(rhs("a -> b -> c")) == ("a", "->", ("b", "->", "c"))
    assert shape(rhs("a => b => c")) == ("a", "=>", ("b", "=>", "c"))
    assert shape(rhs("-a * b + c")) == (("neg", ("a", "*", "b")), "+", "c")
    assert shape(rhs("a * -b * c")) == ("a", "*", ("neg", ("b", "*", "c")))
    assert shape(rhs("not a and b")) == (("not", "a"), "and", "b")
    assert shape(rhs("a or b and c")) == ("a", "or", ("b", "and", "c"))
    assert shape(rhs("if a then b else c + d -> e")) == ("ite", "a", "b", (("c", "+", "d"), "->", "e"))
    assert shape(rhs("a or else b and then c")) == ("a", "or else", ("b", "and then", "c"))
    text = "node N() returns (y: int); let y = (a) + (b); tel"
    plus = rhs("(a) + (b)")
    start = text.index("(a)")
    # the parentheses count in the span of '+', not in the operand's own
    assert (plus.pos.start, plus.pos.end) == (start, start + len("(a) + (b)"))
    assert (plus.left.pos.start, plus.left.pos.end) == (start + 1, start + 2)


# ---- mutated texts: the outcome with the fast path is lark's ----

SEEDS = [FMCAD / "stalmark_e8_48.lus", EXAMPLES / "lucent" / "counter.lus",
         EXAMPLES / "lucent" / "accumulator_modes.lus", EXAMPLES / "lucent" / "ghost_contract.lus"]
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\(\*@contract|--%\w+|\S")
_EXTRA = ["(", ")", ";", ",", "=", "->", "if", "then", "else", "let", "tel", "x", "1", "|",
          "when", "[", "]", "{", "}", "lsh", ":", "^", ".", "'(", "@", "<", ">", "end", "with",
          ":=", "..", "mode", "in", "datatype", "match", "set", "map", "any", "*)", "(*@contract",
          "--%PROPERTY", "fi", "every", "restart"]


def _mutants(text: str, rng: random.Random, n: int) -> list[str]:
    spans = [m.span() for m in _TOKEN.finditer(text)]
    out = []
    for _ in range(n):
        a, b = spans[rng.randrange(len(spans))]
        tok = text[a:b]
        kind = rng.randrange(4)
        if kind == 0:
            out.append(text[:a] + text[b:])
        elif kind == 1:
            out.append(text[:b] + " " + tok + text[b:])
        elif kind == 2:
            out.append(text[:a] + " " + rng.choice(_EXTRA) + " " + text[a:])
        else:
            j = spans.index((a, b))
            if j + 1 < len(spans):
                c, d = spans[j + 1]
                out.append(text[:a] + text[c:d] + text[b:c] + tok + text[d:])
    return out


@pytest.mark.parametrize("seed", [*(s for s in SEEDS if s.exists()), "tour"],
                         ids=lambda p: getattr(p, "stem", p))
def test_mutated_texts_keep_lark_outcome(seed, monkeypatch):
    text = TOUR if seed == "tour" else seed.read_text()
    rng = random.Random(str(seed))
    for mutant in _mutants(text, rng, 80 if seed == "tour" else 40):
        monkeypatch.setenv("KINDUCT_LUCENT_PARSER", "lark")
        reference = outcome(parser.parse_text, mutant)
        monkeypatch.delenv("KINDUCT_LUCENT_PARSER")
        assert outcome(parser.parse_text, mutant) == reference, mutant


def test_fast_path_needs_no_lark(tmp_path):
    model = tmp_path / "m.lus"
    model.write_text(gen_model(5_000, "tree"))
    code = ("import sys\nfrom kinduct.frontends.lucent.syntax.parser import parse_file\n"
            f"prog = parse_file({str(model)!r})\n"
            "print(len(prog.nodes), 'lark' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    nodes, lark_loaded = out.stdout.split()
    assert int(nodes) > 5 and lark_loaded == "False"


@pytest.mark.parametrize("rhs", [
    "(" * 600 + "x" + ")" * 600,              # too deep for lark: its error, word for word
    "not " * 7000 + "x",                      # deeper than the fast path's frames
    " + ".join(["x"] * 600),                  # a long left-deep chain
    "(" * 100 + "x" + ")" * 100,              # deep, but within lark's limit: taken
    " -> ".join(["x"] * 300),
], ids=["parens600", "not7000", "chain600", "parens100", "arrows300"])
def test_deep_nesting_keeps_lark_outcome(rhs, monkeypatch):
    text = f"node N(x: int) returns (y: int);\nlet\n  y = {rhs};\ntel\n"
    monkeypatch.setenv("KINDUCT_LUCENT_PARSER", "lark")
    reference = outcome(parser.parse_text, text)
    monkeypatch.delenv("KINDUCT_LUCENT_PARSER")
    assert outcome(parser.parse_text, text) == reference
    if rhs.startswith("(" * 100 + "x") or "->" in rhs:
        assert compare(text, "m.lus") == "taken"  # deep, but not declined for it


def test_nested_blocks_keep_lark_outcome(monkeypatch):
    for depth in (20, 300):
        text = ("node N(x: int) returns (y: int);\nlet\n" + "  frame (y) let\n" * depth
                + "tel\n" * depth + "tel\n")
        monkeypatch.setenv("KINDUCT_LUCENT_PARSER", "lark")
        reference = outcome(parser.parse_text, text)
        monkeypatch.delenv("KINDUCT_LUCENT_PARSER")
        assert outcome(parser.parse_text, text) == reference, depth


def test_keywords_as_names_keep_lark_outcome(monkeypatch):
    """Kind 2's reserved words are refused as names (lark's check), the grammar's other words
    are names where lark reads no keyword: either way the outcome is lark's."""
    from kinduct.frontends.lucent.core.limits import KEYWORDS
    from kinduct.frontends.lucent.syntax.lexer import SOFT
    words = sorted(KEYWORDS | SOFT | {"mode", "set", "map", "in", "datatype"})
    taken = 0
    for w in words:
        for text in (f"node N(x: int) returns (y: int);\nvar {w}: int;\nlet\n  {w} = x;\n  y = {w};\ntel\n",
                     f"const {w} = 1;\ntype T = {w};\n",
                     f"const {w} = 1;\nnode N(x: int) returns ({w}: int);\nvar z, {w}2: int;\nlet tel\n",
                     f"node N({w}: bool) returns (y: bool);\n(*@contract\n  assume {w};\n*)\n"
                     f"let\n  y = {w} and not {w};\ntel\n"):
            monkeypatch.setenv("KINDUCT_LUCENT_PARSER", "lark")
            reference = outcome(parser.parse_text, text)
            monkeypatch.delenv("KINDUCT_LUCENT_PARSER")
            assert outcome(parser.parse_text, text) == reference, text
            taken += compare(text, "m.lus") == "taken"
    assert taken >= 10  # the soft words are names to the fast path too


def test_lexer_knows_every_word_of_the_grammar():
    """A word of ``lucent.lark`` missing from the lexer's tables would be a name to the fast
    path where lark reads a keyword."""
    from kinduct.frontends.lucent.syntax.lexer import HARD, SOFT
    grammar = (ROOT / "frontends" / "lucent" / "syntax" / "lucent.lark").read_text()
    grammar = re.sub(r"//[^\n]*", "", grammar)
    words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar))
    assert words and not words - HARD - SOFT, words - HARD - SOFT
    assert not HARD & SOFT
    # each punctuation mark of the grammar is one token of its own kind
    marks = set(re.findall(r'"([^"A-Za-z0-9_ ]+)"', grammar)) - {"[^"}  # '[^' is in a regex
    for mark in marks:
        kinds = tokenize(mark).kinds[:-3]
        assert kinds == ["CONTRACT_CLOSE" if mark in ("*)", "*/") else mark], mark


WORDS = st.sampled_from(["node", "function", "rec", "realizable", "REALİZABLE", "Realizable",
                         "]", "}", "@", "<", " ", "\n", "(*", "*)", "--", '"', "x", "İ", "ſ"])


@given(st.lists(WORDS, max_size=12))
def test_prescan_finds_what_its_patterns_find(parts):
    """The prescan looks for a text each feature's pattern needs before running the pattern:
    its verdict is the patterns' own."""
    from kinduct.frontends.lucent.syntax.prescan import UNSUPPORTED, blank_comments
    text = "".join(parts)
    try:
        parser.check_unsupported(text, "m.lus")
        found = None
    except InputError as exc:
        found = str(exc)
    clean = blank_comments(text)
    if found is None or "unsupported" in found:
        hits = sorted((m.start(), feature) for pattern, feature in UNSUPPORTED
                      if (m := pattern.search(clean)))
        assert (found is None) == (not hits), text
        if hits:
            assert hits[0][1] in found, text
