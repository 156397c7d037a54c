"""``kinduct lsp`` timings (issue 40), through a plain JSON-RPC client over the server's stdio:

- ``cache``: a chain of N nodes (each calls the one before and has one property), checked
  whole three times: first (every node analysed), again unchanged (answered from the verdict
  cache), and after an edit in the middle node (that node and its callers analysed again).
  Prints the wall time of each ``kinduct.check`` request, the analyses it ran (``kinduct/stats``)
  and the ratio of the unchanged check to the first.
- ``large``: a generated Lucent model of about ``--mb`` megabytes opened with ``didOpen``: the
  time until its diagnostics arrive, and their count.  ``--model nodes`` (the default):
  ``scale_models.gen_model``, many small nodes with contracts, records, arrays and calls (issue
  35's scale models); ``--model equations``: ``parse_speed.gen_lucent``, one node with a long
  list of equations.

    .venv/bin/python benchmarks/lsp_speed.py [--nodes 20] [--mb 1.0] [--model nodes]
        [--parts cache,large]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.parse_speed import gen_lucent  # noqa: E402
from benchmarks.scale_models import gen_model  # noqa: E402

SERVER = [sys.executable, "-c", "import sys; from kinduct.script import main; sys.exit(main())", "lsp"]


class Client:
    """A blocking JSON-RPC client of a server child process."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, obj: dict[str, Any]) -> None:
        body = json.dumps(obj).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            byte = self.proc.stdout.read(1)
            if not byte:
                raise EOFError("the server closed its output")
            head += byte
        length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        return json.loads(self.proc.stdout.read(length))

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        my_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == my_id and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg.get("result")

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str) -> list[dict[str, Any]]:
        while True:
            msg = self.read()
            if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                return msg["params"]["diagnostics"]

    def start(self) -> None:
        self.request("initialize", {"processId": os.getpid(), "capabilities": {}})
        self.notify("initialized", {})

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a benchmark's client ends the server anyway
            self.proc.kill()


def chain(n: int, bump: int = 0) -> str:
    parts = ["node N1(x: int) returns (y: int);\nlet\n  y = if x > 0 then x else 0;\n  check y >= 0;\ntel\n"]
    for i in range(2, n + 1):
        extra = bump if i == n // 2 else 0
        parts.append(f"node N{i}(x: int) returns (y: int);\nlet\n  y = N{i - 1}(x) + {extra};\n"
                     f"  check y >= 0;\ntel\n")
    return "\n".join(parts)


def open_doc(client: Client, path: Path, text: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "lucent", "version": 1, "text": text}})
    return uri


def timed_check(client: Client, uri: str) -> tuple[float, int]:
    before = client.request("kinduct/stats", None)["analyses"]
    start = time.perf_counter()
    client.request("workspace/executeCommand", {"command": "kinduct.check", "arguments": [uri]})
    took = time.perf_counter() - start
    return took, client.request("kinduct/stats", None)["analyses"] - before


def part_cache(tmp: Path, n: int) -> None:
    client = Client(SERVER)
    client.start()
    try:
        uri = open_doc(client, tmp / "chain.lus", chain(n))
        client.wait_diagnostics(uri)
        first = timed_check(client, uri)
        second = timed_check(client, uri)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": chain(n, bump=1)}]})
        edited = timed_check(client, uri)
    finally:
        client.close()
    print(f"cache: chain of {n} nodes, one property each (an edit in N{n // 2})")
    print(f"  {'check':<28}{'wall (s)':>10}{'analyses':>10}")
    for label, (took, ran) in (("first", first), ("again, unchanged", second),
                               (f"after an edit in N{n // 2}", edited)):
        print(f"  {label:<28}{took:>10.3f}{ran:>10}")
    print(f"  unchanged / first = {second[0] / first[0]:.4f} (want < 0.1)")


def part_large(tmp: Path, mb: float, model: str) -> None:
    text = gen_model(int(mb * 1_000_000)) if model == "nodes" else gen_lucent(int(mb * 1_000_000))
    client = Client(SERVER)
    client.start()
    try:
        path = tmp / "large.lus"
        start = time.perf_counter()
        uri = open_doc(client, path, text)
        diags = client.wait_diagnostics(uri)
        took = time.perf_counter() - start
        start = time.perf_counter()
        symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        outline = time.perf_counter() - start
    finally:
        client.close()
    print(f"large ({model}): {len(text) / 1e6:.2f} MB, {text.count(chr(10))} lines: diagnostics "
          f"({len(diags)}) {took:.2f} s after didOpen (want < 5); outline ({len(symbols)} "
          f"declarations) {outline:.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--model", default="nodes", choices=["nodes", "equations"])
    ap.add_argument("--parts", default="cache,large")
    args = ap.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        parts = args.parts.split(",")
        if "cache" in parts:
            part_cache(Path(tmp), args.nodes)
        if "large" in parts:
            part_large(Path(tmp), args.mb, args.model)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
