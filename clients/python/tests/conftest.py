"""Real dice-node processes on 127.0.0.1 for the client's tests.

The binary is $DICE_NODE_BIN (ctest passes the one it built), else the one
in build/ of this checkout. Every node started here is stopped by its pid
when its fixture ends."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package from this checkout

REPO = HERE.parents[2]
NODE_BIN = os.environ.get("DICE_NODE_BIN") or str(REPO / "build/apps/dice-node/dice-node")


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, node_id, tmp, peers=(), extra=(), tls=None):
        self.id = node_id
        self.udp = f"127.0.0.1:{free_port(socket.SOCK_DGRAM)}"
        self.http_port = free_port()
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.http_port}"
        self.log_path = Path(tmp) / f"{node_id}.log"
        args = [NODE_BIN, "--id", node_id, "--listen", self.udp,
                "--http", f"127.0.0.1:{self.http_port}", "--data-dir", "none",
                "--log-level", "info"]
        for p in peers:
            args += ["--peer", p]
        if tls:
            args += ["--http-tls-cert-file", tls[0], "--http-tls-key-file", tls[1]]
        args += list(extra)
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def wait_healthy(self, timeout=10.0, ca_file=None):
        import ssl
        ctx = ssl.create_default_context(cafile=ca_file) if ca_file else None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dice-node {self.id} exited {self.proc.returncode}:\n"
                                   + self.log_text())
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1,
                                            context=ctx) as r:
                    if json.load(r).get("ok"):
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"dice-node {self.id} not healthy after {timeout} s:\n"
                           + self.log_text())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()


@pytest.fixture(scope="session", autouse=True)
def node_binary():
    if not os.access(NODE_BIN, os.X_OK):
        pytest.fail(f"no dice-node at {NODE_BIN}: set DICE_NODE_BIN")


@pytest.fixture
def start_node(tmp_path):
    """start_node(id, peers=(), extra=(), tls=None) -> a healthy Node."""
    started = []

    def start(node_id, peers=(), extra=(), tls=None, ca_file=None):
        n = Node(node_id, tmp_path, peers, extra, tls)
        started.append(n)
        return n.wait_healthy(ca_file=ca_file)

    yield start
    for n in started:
        n.stop()


def wait_members(url, count, timeout=10.0):
    """Until the node at url sees count members alive."""
    import dice
    c = dice.Client(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(1 for n in c.nodes() if n["state"] == "alive") >= count:
            return
        time.sleep(0.05)
    raise RuntimeError(f"{url} does not see {count} live members after {timeout} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two nodes, a and b, that know each other; a runs /bin/false and
    /bin/echo as shell tasks."""
    tmp = tmp_path_factory.mktemp("cluster")
    false = shutil.which("false") or "/bin/false"
    a = Node("a", tmp, extra=["--shell-allow", false, "--shell-allow", "/bin/echo"])
    b = Node("b", tmp, peers=[a.udp])
    try:
        a.wait_healthy()
        b.wait_healthy()
        wait_members(a.url, 2)
        wait_members(b.url, 2)
        a.false = false
        yield a, b
    finally:
        b.stop()
        a.stop()
