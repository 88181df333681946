#!/usr/bin/python3
"""A minimal beanstalkd client (the text protocol over one TCP socket; Debian
ships no Python client) and the worker bench/peers runs.

Tasks go to tube "jobs" as "noop" or "sleep SECONDS"; a worker reserves one,
runs it, deletes it and puts its id into tube "results", where the submitter
reserves it: beanstalkd has no result store, and this is its usual pattern.

Usage: beanstalk.py worker PORT
"""
import socket
import sys

import peer_jobs


class Client:
    def __init__(self, port, host="127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=None)
        # Small request/answer exchanges: do not let Nagle hold them back.
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.rfile = self.sock.makefile("rb")

    def _cmd(self, line, body=None):
        data = line.encode() + b"\r\n"
        if body is not None:
            data += body + b"\r\n"
        self.sock.sendall(data)
        return self.rfile.readline().rstrip(b"\r\n").decode().split()

    def _expect(self, words, *ok):
        if not words or words[0] not in ok:
            raise RuntimeError(f"beanstalkd answered {' '.join(words)!r}")
        return words

    def _body(self, size):
        return self.rfile.read(int(size) + 2)[:-2]

    def use(self, tube):
        self._expect(self._cmd(f"use {tube}"), "USING")

    def watch(self, tube):
        self._expect(self._cmd(f"watch {tube}"), "WATCHING")

    def ignore(self, tube):
        self._expect(self._cmd(f"ignore {tube}"), "WATCHING")

    def put(self, body, pri=1024, ttr=60):
        w = self._expect(self._cmd(f"put {pri} 0 {ttr} {len(body)}", body), "INSERTED")
        return int(w[1])

    def reserve(self, timeout=None):
        """(id, body), or None when timeout seconds pass with nothing ready."""
        line = "reserve" if timeout is None else f"reserve-with-timeout {int(timeout)}"
        w = self._expect(self._cmd(line), "RESERVED", "TIMED_OUT")
        if w[0] == "TIMED_OUT":
            return None
        return int(w[1]), self._body(w[2])

    def delete(self, job_id):
        self._expect(self._cmd(f"delete {job_id}"), "DELETED")

    def stats_tube(self, tube):
        w = self._expect(self._cmd(f"stats-tube {tube}"), "OK", "NOT_FOUND")
        if w[0] == "NOT_FOUND":
            return {}
        lines = self._body(w[1]).decode().splitlines()
        return dict(l.split(": ", 1) for l in lines if ": " in l)


def worker(port):
    c = Client(port)
    c.watch("jobs")
    c.ignore("default")
    c.use("results")
    while True:
        job_id, body = c.reserve()
        what = body.split()
        if what[0] == b"sleep":
            peer_jobs.sleep(float(what[1]))
        else:
            peer_jobs.noop()
        c.delete(job_id)
        c.put(str(job_id).encode())


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "worker":
        sys.exit(__doc__)
    worker(int(sys.argv[2]))
