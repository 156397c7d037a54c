"""Running ``kinduct`` in-process (fast on a loaded machine); subprocess tests use run_cli."""

from __future__ import annotations

import json

from kinduct.kernel.cli import main


def kinduct(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def kinduct_json(capsys, *args) -> tuple[int, object]:
    code, out, err = kinduct(capsys, *args, "--json")
    assert "Traceback" not in err, err
    return code, json.loads(out)
