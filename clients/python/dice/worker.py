"""A worker: Python functions serving task kinds through a DiCE node.

The node claims tasks as it always does; an execution of a kind this worker
serves is handed to it through the node's /workers routes (docs/workers.md),
and its result goes back the same way. The node advertises the kinds only
while a worker serves them. A worker that stops asking (killed, hung,
unreachable) is gone after the node's --worker-lease-ms, and the tasks it
held run again, on another node if no other worker here serves their kind.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .client import Client
from .errors import BadRequest, DiceError, NotFound, Unreachable

log = logging.getLogger("dice.worker")


class FinalFailure(Exception):
    """Raise it from a kind's function when no retry can help (a payload it
    cannot read, say): the task ends failed at once instead of spending its
    attempts."""


@dataclass
class Job:
    """One execution handed to this worker. ``canceled`` is set when the
    node takes it back (the task was canceled, or ran past its time limit):
    a long function may check it and return early; its answer is dropped."""

    job: int
    task_id: str
    attempt: int
    kind: str
    payload: str
    time_limit_ms: int = 0
    canceled: threading.Event = field(default_factory=threading.Event, repr=False)


def _result_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return json.dumps(value)


class Worker:
    """Serves task kinds through one node.

        w = dice.Worker("http://127.0.0.1:8400", concurrency=4)

        @w.kind("resize")
        def resize(payload):          # or (payload, job) to see job.canceled
            return do_resize(payload)

        w.run()                       # until SIGINT/SIGTERM or w.stop()

    ``url``, ``token``, ``token_file`` and ``ca_file`` are as for
    dice.Client. ``concurrency``: jobs run at once, each on a thread of its
    own. ``name`` shows in GET /workers (default host:pid). ``poll``:
    seconds a take waits on the node for work (a killed worker is noticed
    within this plus the node's lease).
    """

    def __init__(self, url: Optional[str] = None, *, token: Optional[str] = None,
                 token_file: Optional[str] = None, ca_file: Optional[str] = None,
                 concurrency: int = 1, name: Optional[str] = None,
                 poll: float = 2.0, timeout: float = 10.0):
        if not isinstance(concurrency, int) or not 1 <= concurrency <= 1024:
            raise ValueError(f"concurrency: 1 to 1024, not {concurrency!r}")
        if not 0 <= poll <= 30:
            raise ValueError(f"poll: 0 to 30 seconds, not {poll!r}")
        self._client_args = dict(url=url, token=token, token_file=token_file,
                                 ca_file=ca_file, timeout=timeout)
        self._poller = Client(**self._client_args)
        self.url = self._poller.url
        self.concurrency = concurrency
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.poll = poll
        self._kinds: Dict[str, Callable[..., Any]] = {}
        self._with_job: Dict[str, bool] = {}
        self._local = threading.local()
        self._stopping = threading.Event()
        self._running: Dict[int, Job] = {}
        self._lock = threading.Lock()
        self.id: Optional[str] = None
        self.done = 0    # jobs answered
        self.failed = 0  # of them, failures

    def __repr__(self) -> str:
        return f"dice.Worker({self.url!r}, kinds={sorted(self._kinds)})"

    # ---- kinds --------------------------------------------------------------

    def kind(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the function serves kind ``name``. It takes the
        payload (a str), or the payload and the Job, and returns the result
        (a str; bytes are decoded, None is "", anything else becomes JSON).
        An exception fails the attempt (the task's retries apply);
        FinalFailure fails the task at once."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.add_kind(name, fn)
            return fn
        return register

    def add_kind(self, name: str, fn: Callable[..., Any]) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a kind's name: a non-empty string")
        if self.id is not None:
            raise RuntimeError("add kinds before run()")
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            with_job = len(params) >= 2
        except (TypeError, ValueError):
            with_job = False
        self._kinds[name] = fn
        self._with_job[name] = with_job

    @property
    def kinds(self) -> List[str]:
        return sorted(self._kinds)

    # ---- running ------------------------------------------------------------

    def run(self, *, handle_signals: bool = True) -> None:
        """Join the node and serve until stop() (or SIGINT/SIGTERM when
        ``handle_signals`` and called from the main thread): no new jobs
        then, the running ones finish and are answered, and the worker
        leaves. Raises BadRequest if the node refuses the kinds."""
        if not self._kinds:
            raise ValueError("no kinds: add one with @worker.kind(NAME)")
        if handle_signals and threading.current_thread() is threading.main_thread():
            previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
            for s in previous:
                signal.signal(s, lambda *_: self.stop())
        else:
            previous = {}
        try:
            self._join()
            with ThreadPoolExecutor(self.concurrency,
                                    thread_name_prefix="dice-worker") as pool:
                self._serve(pool)
            self._leave()
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
            self._poller.close()

    def stop(self) -> None:
        """Ask run() to finish: it takes no new jobs, lets the running ones
        end and leaves the node. Safe from any thread or a signal handler."""
        self._stopping.set()

    def _join(self) -> None:
        _, answer = self._poller._request("POST", "/workers", {
            "kinds": self.kinds, "concurrency": self.concurrency, "name": self.name})
        self.id = answer["worker"]
        log.info("worker %s serves %s through %s", self.id, ", ".join(self.kinds),
                 self.url)

    def _leave(self) -> None:
        try:
            self._poller._request("DELETE", f"/workers/{self.id}")
        except NotFound:
            pass  # gone already (its lease ran out)
        except DiceError as e:
            log.warning("leaving %s: %s", self.url, e)

    def _serve(self, pool: ThreadPoolExecutor) -> None:
        backoff = 0.25
        while not self._stopping.is_set():
            try:
                # The node gives no more than the concurrency minus the jobs
                # still unanswered, so max is the concurrency.
                _, answer = self._poller._request(
                    "POST", f"/workers/{self.id}/take",
                    {"max": self.concurrency, "wait_ms": int(self.poll * 1000)},
                    timeout=self.poll + self._poller.timeout)
                backoff = 0.25
            except NotFound:
                log.warning("the node forgot worker %s (restarted, or the lease "
                            "ran out): joining again", self.id)
                self._rejoin()
                continue
            except (Unreachable, DiceError) as e:
                log.warning("%s: %s; trying again in %.2g s", self.url, e, backoff)
                self._stopping.wait(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            with self._lock:
                for job_id in answer.get("cancel", []):
                    if job_id in self._running:
                        self._running[job_id].canceled.set()
            for j in answer.get("jobs", []):
                job = Job(job=j["job"], task_id=j["task_id"], attempt=j["attempt"],
                          kind=j["kind"], payload=j["payload"],
                          time_limit_ms=j.get("time_limit_ms", 0))
                with self._lock:
                    self._running[job.job] = job
                pool.submit(self._execute, job)
            if not answer.get("jobs") and answer.get("retry_ms"):
                self._stopping.wait(answer["retry_ms"] / 1000.0)

    def _rejoin(self) -> None:
        while not self._stopping.is_set():
            try:
                self._join()
                return
            except BadRequest:
                raise
            except DiceError as e:
                log.warning("joining %s: %s", self.url, e)
                self._stopping.wait(1.0)

    def _client(self) -> Client:
        c = getattr(self._local, "client", None)
        if c is None:
            c = self._local.client = Client(**self._client_args)
        return c

    def _execute(self, job: Job) -> None:
        fn = self._kinds.get(job.kind)
        body: Dict[str, Any] = {"job": job.job}
        try:
            if fn is None:
                raise FinalFailure(f"this worker serves no kind '{job.kind}'")
            value = fn(job.payload, job) if self._with_job[job.kind] else fn(job.payload)
            body.update(ok=True, result=_result_text(value))
        except FinalFailure as e:
            body.update(ok=False, final=True, reason=str(e) or "failed")
        except Exception as e:  # the task's failure, not the worker's
            body.update(ok=False, reason=f"{type(e).__name__}: {e}")
        self._answer(job, body)

    def _answer(self, job: Job, body: Dict[str, Any]) -> None:
        try:
            for attempt in range(3):
                try:
                    self._client()._request("POST", f"/workers/{self.id}/done", body)
                    break
                except Unreachable:
                    if attempt == 2:
                        raise
                    time.sleep(0.2 * (attempt + 1))
        except NotFound:
            log.warning("job %d of task %s: the node forgot this worker; the "
                        "task runs again", job.job, job.task_id)
        except DiceError as e:
            log.warning("job %d of task %s: answer not delivered (%s); the task "
                        "runs again", job.job, job.task_id, e)
        finally:
            with self._lock:
                self._running.pop(job.job, None)
                self.done += 1
                self.failed += 0 if body.get("ok") else 1
