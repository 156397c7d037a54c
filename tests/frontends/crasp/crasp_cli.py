"""Run ``kinduct`` in-process (the same ``main`` as the console script, minus interpreter start-up,
which costs seconds on a loaded machine); a few tests still run the installed script end to end."""

from __future__ import annotations

import json

from kinduct.kernel.cli import main


def run_main(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def run_main_json(capsys, *args) -> tuple[int, list[dict]]:
    code, out, err = run_main(capsys, *args, "--json")
    assert "Traceback" not in err, err
    return code, json.loads(out)
