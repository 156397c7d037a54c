"""``check --certificates``: the SMT-LIB scripts of valid verdicts, checked by solvers that share
no code with kinduct's: the bare ``z3`` binary shipped in the z3-solver wheel, and cvc5 (its
binary when installed, else the parser and solver of its Python API on the file's text).

Every script of a valid property must be ``unsat`` under both; a deliberately broken
certificate (invariant replaced by ``true``; a 1-inductive invariant that is not inductive)
must make one ``sat``.  Two FMCAD08 models run by default (one proved by k-induction, one by IC3); ten more
are ``slow``.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import KINDUCT

FMCAD = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "lustre" / "fmcad08"
SCRIPTS = ("base.smt2", "induction.smt2", "implication.smt2")

#: Valid FMCAD08 models (manifest: unanimous verdicts) and the engine that proves them here.
DEFAULT = [("stalmark.lus", "kind"), ("DRAGON_1.lus", "ic3")]
SLOW = [
    ("DRAGON_1_e2_1997_e7_3613_e2_3409.lus", "portfolio"),
    ("DRAGON_all2_e3_4612_e3_1543.lus", "portfolio"),
    ("FIREFLY_3_e2_2236.lus", "kind"),
    ("FIREFLY_9_e7_170_e3_3647.lus", "portfolio"),
    ("MESI_2.lus", "kind"),
    ("SYNAPSE_3_e8_1329_e7_1062.lus", "ic3"),
    ("car_2_e7_1027_e1_1047.lus", "portfolio"),
    ("metros_1_e7_1255_e7_12.lus", "kind,invgen"),
    ("rtp_8.lus", "portfolio"),
    ("ticket3i_all_e3_557_e7_3464.lus", "portfolio"),
]


def z3_binary() -> Path | None:
    """The ``z3`` executable the z3-solver wheel installs (its ``bin/z3`` entry)."""
    try:
        files = importlib.metadata.distribution("z3-solver").files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == "z3" and "bin" in f.parts:
            path = Path(f.locate()).resolve()
            if path.is_file():
                return path
    return None


def run_z3(path: Path) -> str:
    binary = z3_binary()
    if binary is None:
        pytest.skip("the z3-solver wheel ships no z3 binary here")
    out = subprocess.run([str(binary), str(path)], capture_output=True, text=True, timeout=120)
    return out.stdout.strip()


def run_cvc5(path: Path) -> str:
    """cvc5's answer: its binary when on PATH, else its Python API's SMT-LIB parser (with
    ``--arrays-exp`` where the script has constant arrays, which cvc5 needs for them)."""
    const_arrays = "(as const " in path.read_text()
    binary = shutil.which("cvc5")
    if binary:
        out = subprocess.run([binary, *(["--arrays-exp"] if const_arrays else []), str(path)],
                             capture_output=True, text=True, timeout=120)
        return out.stdout.strip()
    cvc5 = pytest.importorskip("cvc5")
    solver = cvc5.Solver(cvc5.TermManager())
    if const_arrays:
        solver.setOption("arrays-exp", "true")
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, path.read_text(), path.name)
    symbols = parser.getSymbolManager()
    answers = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        answers.append(command.invoke(solver, symbols).strip())
    return "\n".join(a for a in answers if a)


def certify(tmp_path: Path, model: str, engine: str, *extra: str) -> Path:
    """Run ``kinduct check`` on the FMCAD08 ``model``; the one property's certificate folder."""
    source = FMCAD / model
    if not source.exists():
        pytest.skip(f"{source} is not here")
    out = tmp_path / "certs"
    run = subprocess.run(
        [str(KINDUCT), "check", str(source), "--engine", engine, "--json",
         "--timeout", "120", "--certificates", str(out), *extra],
        capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    answers = [o["answer"]["value"] for o in json.loads(run.stdout) if o["objectType"] == "property"]
    assert answers == ["valid"]
    folders = [p.parent for p in out.glob("certif/*/*/base.smt2")]
    assert len(folders) == 1, sorted(out.rglob("*"))
    return folders[0]


def assert_all_unsat(folder: Path) -> None:
    for name in SCRIPTS:
        script = folder / name
        assert script.read_text().count("(check-sat)") == 1
        assert run_z3(script) == "unsat", name
        assert run_cvc5(script) == "unsat", name


def _broken(folder: Path, name: str, edit) -> Path:
    text = (folder / name).read_text()
    changed = edit(text)
    assert changed != text, "the edit changed nothing"
    target = folder / f"broken-{name}"
    target.write_text(changed)
    return target


def _invariant_true(text: str) -> str:
    """The ``cert.invariant`` definition with its body replaced by ``true``."""
    return re.sub(r"(\(define-fun cert\.invariant \(.*?\) Bool\n  ).*", r"\1true)", text)


@pytest.fixture(scope="module")
def default_certificates(tmp_path_factory) -> dict[str, Path]:
    """The certificate folder of each DEFAULT model (computed once for the module)."""
    return {model: certify(tmp_path_factory.mktemp(model.replace(".", "_")), model, engine)
            for model, engine in DEFAULT}


@pytest.mark.parametrize("model", [m for m, _ in DEFAULT])
def test_certificates_are_unsat_under_z3_and_cvc5(default_certificates, model):
    assert_all_unsat(default_certificates[model])


@pytest.mark.slow
@pytest.mark.parametrize(("model", "engine"), SLOW)
def test_certificates_of_ten_fmcad08_models(tmp_path, model, engine):
    assert_all_unsat(certify(tmp_path, model, engine))


@pytest.mark.parametrize("model", [m for m, _ in DEFAULT])
def test_a_broken_certificate_is_sat_somewhere(default_certificates, model):
    folder = default_certificates[model]
    # the invariant ``true`` no longer implies the property
    broken = [_broken(folder, name, _invariant_true) for name in SCRIPTS]
    answers = {path.name: (run_z3(path), run_cvc5(path)) for path in broken}
    assert ("sat", "sat") in answers.values(), answers
    assert set(answers.values()) <= {("sat", "sat"), ("unsat", "unsat")}, answers


def test_kind2_spelling_writes_to_output_dir(tmp_path):
    model = tmp_path / "stalmark.lus"
    source = FMCAD / "stalmark.lus"
    if not source.exists():
        pytest.skip(f"{source} is not here")
    model.write_text(source.read_text())
    run = subprocess.run([str(KINDUCT), str(model), "--certif", "true",
                          "--output_dir", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "out" / "certif").glob("*/*/*.smt2")) == sorted(SCRIPTS)
    # without --output_dir: Kind 2's default, FILE.out
    run = subprocess.run([str(KINDUCT), str(model), "--certif", "true"],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert len(list((tmp_path / "stalmark.lus.out" / "certif").glob("*/*/induction.smt2"))) == 1


def test_a_verdict_without_proof_gets_a_readme(tmp_path):
    from pysmt.typing import INT

    from kinduct.kernel import certificates
    from kinduct.kernel.system import Property, SystemBuilder
    from kinduct.kernel.verdict import Answer, Verdict

    builder = SystemBuilder("counter")
    x, x_next = builder.state("x", INT)
    mgr = builder.env.formula_manager
    builder.add_init(mgr.Equals(x, mgr.Int(0)))
    builder.add_trans(mgr.Equals(x_next, mgr.Plus(x, mgr.Int(1))))
    builder.add_property(Property("nonneg", mgr.GE(x, mgr.Int(0))))
    system = builder.build()
    written = certificates.write([(system, [Verdict("nonneg", Answer.VALID, engine="external")])],
                                 tmp_path)
    assert [w.missing is not None for w in written] == [True]
    folder = written[0].directory
    assert sorted(p.name for p in folder.iterdir()) == ["README"]
    assert "without a proof" in (folder / "README").read_text()
    # with a 1-inductive invariant the scripts are there, and z3 accepts them
    written = certificates.write([(system, [Verdict("nonneg", Answer.VALID,
                                                    invariant="(>= x 0)")])], tmp_path)
    assert [run_z3(written[0].directory / name) for name in SCRIPTS] == ["unsat"] * 3
    # a wrong one: x <= 3 is not inductive
    written = certificates.write([(system, [Verdict("nonneg", Answer.VALID,
                                                    invariant="(and (>= x 0) (<= x 3))")])], tmp_path)
    assert [run_z3(written[0].directory / name) for name in SCRIPTS] == ["unsat", "sat", "unsat"]


def test_names_that_look_like_step_copies_and_repeated_variables(tmp_path):
    """A variable named ``x@1`` beside ``x``, and a system that lists a variable twice (a
    frontend did): the scripts still declare each copy once, and z3 and cvc5 read them."""
    from pysmt.typing import INT

    from kinduct.kernel import certificates
    from kinduct.kernel.system import Property, SystemBuilder
    from kinduct.kernel.verdict import Answer, Proof, Verdict

    builder = SystemBuilder("clash")
    mgr = builder.env.formula_manager
    x, x_next = builder.state("x", INT)
    y, y_next = builder.state("x@1", INT)
    builder.add_init(mgr.And(mgr.Equals(x, mgr.Int(0)), mgr.Equals(y, mgr.Int(0))))
    builder.add_trans(mgr.And(mgr.Equals(x_next, mgr.Plus(x, mgr.Int(1))),
                              mgr.Equals(y_next, mgr.Plus(y, mgr.Int(1)))))
    builder.add_property(Property("same", mgr.Equals(x, y)))
    system = builder.build()
    system = system.evolve(state_vars=(*system.state_vars, x), next_vars=(*system.next_vars, x_next))
    verdict = Verdict("same", Answer.VALID, proof=Proof(2, "(= x |x@1|)"))
    (written,) = certificates.write([(system, [verdict])], tmp_path)
    for name in SCRIPTS:
        assert (run_z3(written.directory / name), run_cvc5(written.directory / name)) == \
            ("unsat", "unsat"), name


def test_uninterpreted_sorts_and_functions(tmp_path):
    """A state of an uninterpreted sort, set by an uninterpreted function (Lucent's imported
    functions and abstract types): the sort and the function are declared in each script."""
    from pysmt.typing import INT, FunctionType

    from kinduct.kernel import certificates
    from kinduct.kernel.system import Property, SystemBuilder
    from kinduct.kernel.verdict import Answer, Verdict

    builder = SystemBuilder("sorts")
    mgr = builder.env.formula_manager
    sort = builder.env.type_manager.Type("Opaque", 0)
    f = mgr.Symbol("f", FunctionType(sort, [INT]))
    s, s_next = builder.state("s", sort)
    builder.add_init(mgr.Equals(s, mgr.Function(f, [mgr.Int(0)])))
    builder.add_trans(mgr.Equals(s_next, s))
    builder.add_property(Property("kept", mgr.Equals(s, mgr.Function(f, [mgr.Int(0)]))))
    system = builder.build()
    verdict = Verdict("kept", Answer.VALID, invariant="(= s (f 0))")
    (written,) = certificates.write([(system, [verdict])], tmp_path)
    assert written.missing is None, written.missing
    for name in SCRIPTS:
        text = (written.directory / name).read_text()
        assert "(declare-sort Opaque 0)" in text
        assert (run_z3(written.directory / name), run_cvc5(written.directory / name)) == \
            ("unsat", "unsat"), name


def test_names_smtlib_reserves(tmp_path):
    """VMT's state variables ``.s.0`` (a name SMT-LIB reserves: cvc5 refuses to declare it)
    are renamed in the scripts."""
    from pysmt.typing import BOOL

    from kinduct.kernel import certificates
    from kinduct.kernel.system import Property, SystemBuilder
    from kinduct.kernel.verdict import Answer, Verdict

    builder = SystemBuilder("reserved")
    mgr = builder.env.formula_manager
    s, s_next = builder.state(".s.0", BOOL)
    builder.add_init(mgr.Not(s))
    builder.add_trans(mgr.Iff(s_next, s))
    builder.add_property(Property("off", mgr.Not(s)))
    system = builder.build()
    verdict = Verdict("off", Answer.VALID, invariant="(not .s.0)")
    (written,) = certificates.write([(system, [verdict])], tmp_path)
    assert written.missing is None, written.missing
    for name in SCRIPTS:
        assert "declare-fun .s" not in (written.directory / name).read_text()
        assert (run_z3(written.directory / name), run_cvc5(written.directory / name)) == \
            ("unsat", "unsat"), name
