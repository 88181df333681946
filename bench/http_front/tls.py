#!/usr/bin/env python3
"""What TLS costs the HTTP API, and whether slow TLS clients can stall it:
one dice-node binary started twice, with plain HTTP and with TLS (a
self-signed certificate made by the openssl program), measured side by
side in one run: GET /health on one kept-alive connection, on a new
connection each (the TLS handshake included), and probed while --slow
clients each trickle a real TLS ClientHello a byte a second.
Usage: tls.py --node build/apps/dice-node/dice-node [--slow 1000]"""
import argparse, http.client, os, shutil, socket, ssl, subprocess
import tempfile, threading, time

from front_common import percentile, raise_file_limit, running_node

def connect(port, ctx):
    if ctx is None:
        return http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=2, context=ctx)

def get(conn):
    conn.request("GET", "/health")
    r = conn.getresponse()
    r.read()
    return r.status

def kept_alive(port, ctx, n):
    conn, times = connect(port, ctx), []
    for _ in range(n):
        t0 = time.monotonic()
        assert get(conn) == 200
        times.append(time.monotonic() - t0)
    conn.close()
    return times

def fresh(port, ctx, n, pause=0.0):
    """Seconds per request on a new connection each; 2 s for no answer."""
    times = []
    for _ in range(n):
        t0 = time.monotonic()
        try:
            conn = connect(port, ctx)
            ok = get(conn) == 200
            conn.close()
        except OSError:
            ok = False
        times.append(time.monotonic() - t0 if ok else 2.0)
        time.sleep(pause)
    return times

def client_hello():
    """The bytes a TLS client sends first, made by Python's own ssl."""
    ctx = ssl.create_default_context()
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="127.0.0.1")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()

def trickle(port, count, hello, stop):
    """`count` connections sending `hello` a byte a second, reopened when cut."""
    def open_one():
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        return [s, 0]
    conns, reopened = [open_one() for _ in range(count)], 0
    deadline = time.monotonic() + 600
    while not stop.is_set() and time.monotonic() < deadline:
        for c in conns:
            try:
                c[0].send(hello[c[1] % len(hello):c[1] % len(hello) + 1])
                c[1] += 1
            except BlockingIOError:
                pass
            except OSError:
                c[0].close()
                c[:] = open_one()
                reopened += 1
        stop.wait(1.0)
    for c in conns:
        c[0].close()
    return reopened

def measure(binary, root, cert, key, ctx, a):
    def healthy(port):
        try:
            return get(connect(port, ctx)) == 200
        except OSError:
            return False
    tls = [] if ctx is None else ["--http-tls-cert-file", cert, "--http-tls-key-file", key]
    with running_node(binary, root, healthy, tls) as port:
        kept = kept_alive(port, ctx, a.requests)
        new = fresh(port, ctx, a.requests // 4)
        stop, out = threading.Event(), {}
        t = threading.Thread(target=lambda: out.update(r=trickle(port, a.slow, HELLO, stop)))
        t.start()
        time.sleep(3)
        loaded = fresh(port, ctx, 200, pause=0.05)
        stop.set()
        t.join()
        return kept, new, loaded, out.get("r", 0)

HELLO = client_hello()

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--node", required=True, help="the dice-node binary")
    ap.add_argument("--requests", type=int, default=2000, help="kept-alive requests")
    ap.add_argument("--slow", type=int, default=1000, help="trickling TLS clients")
    a = ap.parse_args()
    raise_file_limit()
    root = tempfile.mkdtemp(prefix="dice-tls-")
    try:
        cert, key = os.path.join(root, "api.crt"), os.path.join(root, "api.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
                        "/CN=bench", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
        ctx = ssl.create_default_context(cafile=cert)
        print(f"{a.requests} kept-alive GET /health, {a.requests // 4} on new connections,"
              f" 200 probes beside {a.slow} clients trickling a ClientHello")
        print("API | kept-alive req/s | p50 ms | p99 ms | new connection p50 ms | p99 ms"
              " | under trickle answered | p99 ms")
        rows = {}
        for name, c in (("HTTP", None), ("HTTPS", ctx)):
            kept, new, loaded, _ = measure(a.node, root, cert, key, c, a)
            rows[name] = (len(kept) / sum(kept), percentile(new, 50))
            ok = sum(1 for t in loaded if t < 2.0)
            print(f"{name} | {len(kept) / sum(kept):,.0f} | {percentile(kept, 50) * 1e3:.2f}"
                  f" | {percentile(kept, 99) * 1e3:.2f} | {percentile(new, 50) * 1e3:.2f}"
                  f" | {percentile(new, 99) * 1e3:.2f} | {ok}/{len(loaded)}"
                  f" | {percentile(loaded, 99) * 1e3:.1f}")
        print(f"HTTPS / HTTP: kept-alive throughput {rows['HTTPS'][0] / rows['HTTP'][0]:.2f},"
              f" new-connection p50 {rows['HTTPS'][1] / rows['HTTP'][1]:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
