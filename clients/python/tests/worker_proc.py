"""A worker process for the tests: serves py.hold and py.upper through URL.

    python3 worker_proc.py URL NAME MARKER_DIR [--hold]

py.hold writes MARKER_DIR/started-<task id> and, with --hold, waits until
canceled or 60 s; it returns "ran by NAME". py.upper returns the payload in
capitals. SIGTERM stops it gracefully."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dice  # noqa: E402

url, name, markers = sys.argv[1], sys.argv[2], Path(sys.argv[3])
hold = "--hold" in sys.argv[4:]
logging.basicConfig(level=logging.INFO, format=f"{name} %(message)s")
w = dice.Worker(url, name=name, concurrency=2, poll=1.0)


@w.kind("py.hold")
def py_hold(payload, job):
    (markers / f"started-{job.task_id}").write_text(name)
    if hold:
        job.canceled.wait(60)
    return f"ran by {name}"


@w.kind("py.upper")
def py_upper(payload):
    return payload.upper()


w.run()
