"""Reaching a node: a bearer token, HTTPS, no node at all, and the package
installed with pip."""

import os
import shutil
import ssl
import subprocess
import sys
import textwrap

import pytest

import dice


def test_a_token_protected_node(start_node, tmp_path):
    token_file = tmp_path / "api.token"
    token_file.write_text("s3cret-token-of-24-bytes\n")
    other = tmp_path / "other.token"
    other.write_text("another-token-0123456789\n")
    n = start_node("t", extra=["--http-token-file", str(token_file)])

    anonymous = dice.Client(n.url)
    assert anonymous.health()["ok"]  # /health stays open
    with pytest.raises(dice.Unauthorized) as e:
        anonymous.submit("echo", "x")
    assert e.value.status == 401
    assert "--http-token-file" in str(e.value) and "DICE_TOKEN_FILE" in str(e.value)

    with pytest.raises(dice.Unauthorized) as e:
        dice.Client(n.url, token_file=str(other)).nodes()
    assert "another token" in str(e.value)

    c = dice.Client(n.url, token_file=str(token_file))
    assert c.wait(c.submit("echo", "let in"), timeout=10).result == "let in"
    assert dice.Client(n.url, token="s3cret-token-of-24-bytes").nodes()


def test_token_file_and_url_from_the_environment(start_node, tmp_path, monkeypatch):
    token_file = tmp_path / "api.token"
    token_file.write_text("s3cret-token-of-24-bytes")
    n = start_node("e", extra=["--http-token-file", str(token_file)])
    monkeypatch.setenv("DICE_NODE", n.url)
    monkeypatch.setenv("DICE_TOKEN_FILE", str(token_file))
    c = dice.Client()
    assert c.url == n.url
    assert c.wait(c.submit("echo", "env"), timeout=10).result == "env"
    short = tmp_path / "short.token"
    short.write_text("short")
    with pytest.raises(ValueError, match="shorter than 16"):
        dice.Client(token_file=str(short))


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_an_https_node(start_node, tmp_path):
    key, cert = tmp_path / "k.pem", tmp_path / "c.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=t",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True, timeout=30)
    n = start_node("s", tls=(str(cert), str(key)), ca_file=str(cert))
    assert n.url.startswith("https://")

    c = dice.Client(n.url, ca_file=str(cert))
    tid = c.submit("echo", "over tls")
    assert c.wait(tid, timeout=10).result == "over tls"
    assert c.status(tid).state == "done"  # the kept-alive TLS connection again

    with pytest.raises(dice.Unreachable) as e:
        dice.Client(n.url).health()  # the system's CAs do not know the cert
    assert isinstance(e.value.reason, ssl.SSLCertVerificationError)
    assert "certificate verify failed" in str(e.value)
    assert n.url in str(e.value)


def test_an_unreachable_node(start_node):
    from conftest import free_port
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(dice.Unreachable) as e:
        dice.Client(url, timeout=2).submit("echo", "x")
    assert e.value.url == url
    assert url in str(e.value)
    assert isinstance(e.value, dice.DiceError)


def test_a_kept_alive_connection_outlives_the_nodes_idle_timeout(start_node):
    import time
    n = start_node("i", extra=["--http-idle-timeout-ms", "300"])
    c = dice.Client(n.url)
    assert c.health()["id"] == "i"
    time.sleep(0.6)  # the node closed the idle connection meanwhile
    tid = c.submit("echo", "after idle")  # a POST: not sent on the dead one
    assert c.wait(tid, timeout=10).result == "after idle"
    time.sleep(0.6)
    assert c.nodes()[0]["id"] == "i"


def test_pip_install_target(tmp_path):
    # a copy, so that the build leaves nothing in the checkout
    here = os.path.join(os.path.dirname(__file__), "..")
    src = tmp_path / "src"
    shutil.copytree(here, src, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                        "--no-build-isolation", "--no-deps", "--no-index",
                        "--target", str(target), str(src)],
                       capture_output=True, text=True, timeout=120,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    code = textwrap.dedent("""
        import dice, sys
        assert dice.__file__.startswith(sys.argv[1]), dice.__file__
        print(dice.Client("http://127.0.0.1:1").url)
    """)
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True,
                         text=True, timeout=30, cwd=str(tmp_path),
                         env={**os.environ, "PYTHONPATH": str(target)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "http://127.0.0.1:1"
