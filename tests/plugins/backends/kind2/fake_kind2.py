"""A stand-in for the ``kind2`` binary in tests: prints recorded Kind 2 JSON.

Environment: ``FAKE_KIND2_JSON`` (file to print), ``FAKE_KIND2_EXIT`` (exit code, default 0),
``FAKE_KIND2_SLEEP`` (seconds to hang after printing, as a Kind 2 that overruns its timeout),
``FAKE_KIND2_LOG`` (append the command line and the input file's text as one JSON line).
"""

import json
import os
import sys
import time

args = sys.argv[1:]
log = os.environ.get("FAKE_KIND2_LOG")
if log:
    source = args[-1] if args else ""
    text = open(source).read() if os.path.isfile(source) else None
    with open(log, "a") as f:
        f.write(json.dumps({"argv": args, "input": text}) + "\n")
if "-json" not in args:
    sys.stderr.write("fake kind2: this stand-in only speaks -json\n")
    sys.exit(2)
with open(os.environ["FAKE_KIND2_JSON"]) as f:
    sys.stdout.write(f.read())
sys.stdout.flush()
time.sleep(float(os.environ.get("FAKE_KIND2_SLEEP", "0")))
sys.exit(int(os.environ.get("FAKE_KIND2_EXIT", "0")))
