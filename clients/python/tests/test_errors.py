"""How answers a real node rarely gives on demand map onto the exceptions:
a stand-in HTTP server on 127.0.0.1 answers with them."""

import http.server
import json
import threading

import pytest

import dice


class _Stub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    answers = {}

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status, headers, body = self.answers[self.path.split("?")[0]]
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _json(status, body, **headers):
    return status, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()


def test_busy_carries_retry_after(stub):
    _Stub.answers = {
        "/tasks": _json(429, {"error": "queue full", "ids": []}, **{"Retry-After": "1"}),
        "/events": _json(503, {"error": "node busy: timeout"}),
    }
    c = dice.Client(stub)
    with pytest.raises(dice.Busy) as e:
        c.submit("echo", "x")
    assert e.value.status == 429 and e.value.retry_after == 1.0
    assert e.value.message == "queue full"
    with pytest.raises(dice.Busy) as e:
        c.publish("t", "x")
    assert e.value.status == 503 and e.value.retry_after is None


def test_other_statuses(stub):
    _Stub.answers = {
        "/nodes": (500, {"Content-Type": "text/plain"}, b"boom"),
        "/stats": (200, {"Content-Type": "text/plain"}, b"not json"),
        "/locks/x": _json(410, {"error": "lock 'x': token t holds nothing"}),
    }
    c = dice.Client(stub)
    with pytest.raises(dice.DiceError) as e:
        c.nodes()
    assert type(e.value) is dice.DiceError and e.value.status == 500
    assert e.value.message == "boom"
    with pytest.raises(dice.DiceError, match="not JSON"):
        c.stats()
    with pytest.raises(dice.LockLost):
        with c.lock("x", timeout=1):
            pass


def test_arguments_checked_before_any_request():
    c = dice.Client("http://127.0.0.1:1")
    with pytest.raises(ValueError):
        c.submit("echo", "x", delay=-1)
    with pytest.raises(TypeError):
        c.submit("echo", "x", time_limit="30s")
    with pytest.raises(ValueError):
        c.submit("echo", "x", delay=1, at=2)
    with pytest.raises(ValueError):
        dice.Client("ftp://somewhere")
    with pytest.raises(ValueError, match="ca_file"):
        dice.Client("https://127.0.0.1:1", ca_file="/nonexistent/ca.pem")
