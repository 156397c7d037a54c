"""A second, independent client of ``kinduct lsp``: headless Neovim (Debian's ``neovim``, 0.7 or
later) opens a model with a type error and receives kinduct's diagnostic, which must be the
command line's error at the command line's place."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.conftest import KINDUCT, run_cli

pytestmark = pytest.mark.slow

NVIM = shutil.which("nvim")

SCRIPT = """
local out = {out}
local id = vim.lsp.start_client({{
  name = "kinduct",
  cmd = {{ {kinduct}, "lsp" }},
  root_dir = {root},
  handlers = {{
    ["textDocument/publishDiagnostics"] = function(_, result, _, _)
      local f = io.open(out, "w")
      f:write(vim.fn.json_encode(result))
      f:close()
      vim.schedule(function() vim.cmd("qa!") end)
    end,
  }},
}})
vim.lsp.buf_attach_client(0, id)
vim.defer_fn(function() vim.cmd("cquit 2") end, 60000)
"""


@pytest.mark.skipif(NVIM is None, reason="no nvim (apt-get install neovim)")
def test_neovim_receives_the_diagnostics(tmp_path):
    model = tmp_path / "typed.lus"
    model.write_text("node N(x: int) returns (y: bool);\nlet\n  y = x + 1;\ntel\n")
    cli = run_cli("check", model)
    where = re.search(r":(\d+):(\d+): error: (.*)", cli.stderr + cli.stdout)
    out = tmp_path / "diagnostics.json"
    script = tmp_path / "client.lua"
    script.write_text(SCRIPT.format(out=json.dumps(str(out)), kinduct=json.dumps(str(KINDUCT)),
                                    root=json.dumps(str(tmp_path))))
    proc = subprocess.run([NVIM, "--headless", "--clean", str(model), "-c", f"luafile {script}"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())
    assert got["uri"] == model.as_uri()
    (d,) = got["diagnostics"]
    assert d["message"] == where[3].strip()
    assert (d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1) == (
        int(where[1]), int(where[2]))
    assert d["severity"] == 1
