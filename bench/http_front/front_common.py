"""What the HTTP front benchmarks share: a node started and stopped by its
pid, free ports, percentiles, and room for a thousand sockets."""
import contextlib, os, resource, socket, subprocess, sys, tempfile, time

def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

def raise_file_limit():
    """A thousand slow clients need more descriptors than the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

@contextlib.contextmanager
def running_node(binary, root, healthy, extra=()):
    """One dice-node on loopback (data in a fresh dir under `root`), its
    HTTP port given once `healthy(port)` is true; stopped by its pid."""
    udp, port = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
    d = tempfile.mkdtemp(dir=root)
    log = open(os.path.join(d, "node.log"), "wb")
    proc = subprocess.Popen([binary, "--id", "front", "--listen", f"127.0.0.1:{udp}",
                             "--http", f"127.0.0.1:{port}", "--data-dir", d, *extra],
                            stdout=log, stderr=log)
    try:
        for _ in range(600):
            if proc.poll() is not None:
                sys.exit(f"{binary} exited: see {log.name}")
            if healthy(port):
                break
            time.sleep(0.05)
        yield port
    finally:
        stop_process(proc, 20)

def stop_process(proc, grace):
    """SIGTERM, then SIGKILL if it has not exited within `grace` seconds."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
