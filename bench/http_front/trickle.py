#!/usr/bin/env python3
"""The HTTP front against clients that trickle bytes: one dice-node, then
--slow connections that each send a request line and then one byte a
second, reopened as soon as the node cuts them. Meanwhile GET /health is
probed on fresh connections and echo tasks are submitted; the same probes
run first without the slow clients. Each --node binary is measured in
turn in the same run, so two fronts are compared side by side.
Usage: trickle.py --node NEW/dice-node [--node OLD/dice-node] [--slow 1000]"""
import argparse, http.client, json, selectors, shutil, socket
import statistics, tempfile, threading, time

from front_common import percentile, raise_file_limit, running_node

PROBE_TIMEOUT_S = 2.0

def request(port, method, path, body=None):
    """(status, seconds); status 0 if no answer within PROBE_TIMEOUT_S."""
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT_S)
        c.request(method, path, body=json.dumps(body) if body else None,
                  headers={"Content-Type": "application/json"} if body else {})
        status = c.getresponse().status
        c.close()
    except OSError:
        status = 0
    return status, time.monotonic() - t0

class SlowClients:
    """`count` connections, each a byte a second, kept open for `seconds`."""
    HEAD = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "

    def __init__(self, port, count):
        self.port, self.count, self.stop = port, count, threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", self.port))
        return [s, 0]

    def run(self):
        conns = [self.open_one() for _ in range(self.count)]
        deadline = time.monotonic() + 600  # bounded even if never stopped
        while not self.stop.is_set() and time.monotonic() < deadline:
            for c in conns:
                s, sent = c
                try:
                    data = self.HEAD[sent:sent + 1] if sent < len(self.HEAD) else b"a"
                    s.send(data)
                    c[1] += 1
                    try:
                        if s.recv(4096) == b"":
                            raise ConnectionResetError()
                    except BlockingIOError:
                        pass
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:  # cut by the node: a new one takes its place
                    s.close()
                    c[:] = self.open_one()
                    self.reopened += 1
            self.stop.wait(1.0)
        for s, _ in conns:
            s.close()

def probe(port, n):
    health = []
    for _ in range(n):  # 20 a second
        health.append(request(port, "GET", "/health"))
        time.sleep(0.05)
    submits = [request(port, "POST", "/tasks", {"kind": "echo", "payload": "x"})
               for _ in range(n // 4)]
    ok = [t for s, t in health if s == 200]
    return {"health_ok": len(ok), "health_n": n,
            "p50_ms": percentile(ok, 50) * 1000 if ok else None,
            "p99_ms": percentile([t if s == 200 else PROBE_TIMEOUT_S for s, t in health], 99) * 1000,
            "submits_ok": sum(1 for s, _ in submits if s in (200, 201, 202)),
            "submits_n": len(submits)}

def measure(binary, slow, probes, root):
    healthy = lambda port: request(port, "GET", "/health")[0] == 200
    with running_node(binary, root, healthy) as port:
        quiet = probe(port, probes)
        clients = SlowClients(port, slow)
        clients.thread.start()
        time.sleep(3)  # every slow client has connected and begun
        loaded = probe(port, probes)
        clients.stop.set()
        clients.thread.join()
        loaded["reopened"] = clients.reopened
        return quiet, loaded

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--node", action="append", required=True,
                    help="a dice-node binary; give it twice to compare two fronts")
    ap.add_argument("--slow", type=int, default=1000, help="slow connections")
    ap.add_argument("--probes", type=int, default=200, help="GET /health probes per phase")
    a = ap.parse_args()
    raise_file_limit()
    root = tempfile.mkdtemp(prefix="dice-trickle-")
    try:
        print(f"{a.slow} slow clients, {a.probes} /health probes, {a.probes // 4} submits per phase")
        print("node | phase | /health answered | p50 ms | p99 ms | submits ok | slow reopened")
        for binary in a.node:
            quiet, loaded = measure(binary, a.slow, a.probes, root)
            for phase, r in (("quiet", quiet), ("trickle", loaded)):
                p50 = f"{r['p50_ms']:.1f}" if r["p50_ms"] is not None else "-"
                print(f"{binary} | {phase} | {r['health_ok']}/{r['health_n']} | {p50} | "
                      f"{r['p99_ms']:.1f} | {r['submits_ok']}/{r['submits_n']} | "
                      f"{r.get('reopened', '-')}", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
