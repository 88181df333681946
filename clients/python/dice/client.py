"""A client of a DiCE node's HTTP API (docs/running.md), standard library only."""

from __future__ import annotations

import datetime as _dt
import http.client
import json
import os
import select
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from .errors import DiceError, LockLost, NotFound, Unreachable, error_for

DEFAULT_URL = "http://127.0.0.1:8400"
END_STATES = frozenset({"done", "failed", "expired", "canceled", "removed"})
IDS_PER_REQUEST = 256  # GET /tasks?ids=…: the node's limit per request
TOKEN_MIN_BYTES = 16

Duration = Union[int, float, _dt.timedelta]
When = Union[int, float, _dt.datetime]

# A kept-alive connection idle longer than this is opened afresh: the node
# closes idle connections after --http-idle-timeout-ms (5 s by default), and
# a request sent on a connection the node is closing may get no answer.
_IDLE_REUSE_S = 2.0


def _ms(value: Duration, name: str) -> int:
    """Seconds (int or float) or a timedelta, as whole milliseconds."""
    if isinstance(value, _dt.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"{name}: seconds or a datetime.timedelta, not {value!r}")
    if seconds < 0:
        raise ValueError(f"{name}: {value!r} is negative")
    return int(round(seconds * 1000))


def _wall_ms(value: When, name: str) -> int:
    """A datetime (naive: local time) or seconds since the epoch, as
    wall-clock milliseconds."""
    if isinstance(value, _dt.datetime):
        return int(round(value.timestamp() * 1000))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(round(float(value) * 1000))
    raise TypeError(f"{name}: a datetime or seconds since the epoch, not {value!r}")


def read_token_file(path: str, option: str = "token_file") -> str:
    """The bearer token in ``path``, read as dice-node and the CLI read it."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ValueError(f"{option}: cannot read '{path}': {e.strerror}") from e
    token = raw.rstrip(b"\r\n \t").decode("ascii", errors="replace")
    if len(token) < TOKEN_MIN_BYTES:
        raise ValueError(f"{option}: token in '{path}' is shorter than "
                         f"{TOKEN_MIN_BYTES} bytes")
    if any(not (0x21 <= ord(c) <= 0x7E) for c in token):
        raise ValueError(f"{option}: token in '{path}' must be printable ASCII "
                         "without spaces")
    return token


# The longest a node holds GET /tasks/{id}?wait_ms=N (its max_task_poll_ms).
MAX_TASK_WAIT_MS = 30_000


@dataclass
class Task:
    """A task as a node reports it. ``raw`` holds every field the node sent,
    those this class names and any other."""

    id: str
    kind: Optional[str] = None
    state: Optional[str] = None
    node: Optional[str] = None
    attempts: int = 0
    result: Optional[str] = None
    reason: Optional[str] = None
    payload: Optional[str] = None
    priority: Optional[int] = None
    enqueuer: Optional[str] = None
    owner: Optional[str] = None
    key: Optional[str] = None
    locks: List[str] = field(default_factory=list)
    ready_at_ms: Optional[int] = None
    started_at_ms: Optional[int] = None
    finished_at_ms: Optional[int] = None
    time_limit_ms: Optional[int] = None
    max_attempts: Optional[int] = None
    backoff_ms: Optional[int] = None
    not_before_ms: Optional[int] = None
    expires_ms: Optional[int] = None
    keep_for_ms: Optional[int] = None
    retry_at_ms: Optional[int] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ended(self) -> bool:
        """Whether the task is in an end state (done, failed, expired,
        canceled, removed)."""
        return self.state in END_STATES

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Task":
        names = cls.__dataclass_fields__.keys() - {"raw"}
        t = cls(**{k: j[k] for k in names if k in j and j[k] is not None})
        t.raw = dict(j)
        return t


@dataclass
class Event:
    """A causal event as a node delivered it; ``index`` is its delivery
    index on that node (pass it as ``since`` to follow from there)."""

    index: int
    origin: str
    seq: int
    topic: str
    data: str
    time_ms: int

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Event":
        return cls(index=j["index"], origin=j["origin"], seq=j["seq"],
                   topic=j["topic"], data=j["data"], time_ms=j["time_ms"])


def _dropped(sock) -> bool:
    """Whether an idle kept-alive socket was closed by the node (it reads as
    ready: end of file, or a TLS close notice)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _Connection:
    """One kept-alive HTTP(S) connection to a node, opened again when the
    node closed it or it sat idle too long. Not thread-safe."""

    def __init__(self, url: str, timeout: float, context: Optional[ssl.SSLContext]):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url: expected http://HOST:PORT or https://HOST:PORT, "
                             f"not {url!r}")
        self.url = url
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.base = parts.path.rstrip("/")
        self.timeout = timeout
        self.context = context
        self._conn: Optional[http.client.HTTPConnection] = None
        self._last_used = 0.0

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _open(self) -> http.client.HTTPConnection:
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port,
                                               timeout=self.timeout,
                                               context=self.context)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body: Optional[bytes],
                headers: Dict[str, str], timeout: Optional[float] = None):
        """(status, headers, body bytes). Raises Unreachable without answer."""
        fresh = (self._conn is None or self._conn.sock is None
                 or time.monotonic() - self._last_used > _IDLE_REUSE_S
                 or _dropped(self._conn.sock))
        if fresh:
            self.close()
        for attempt in (0, 1):
            if self._conn is None:
                self._conn = self._open()
                fresh = True
            conn = self._conn
            conn.timeout = timeout if timeout is not None else self.timeout
            if conn.sock is not None:
                conn.sock.settimeout(conn.timeout)
            try:
                conn.request(method, self.base + path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError,
                    ConnectionResetError) as e:
                self.close()
                # A reused connection the node had just closed: the request
                # never reached it. Send it once more on a new connection,
                # but only if it is safe to repeat (a POST might have been
                # taken: say so rather than risk doing it twice).
                if not fresh and attempt == 0 and method in ("GET", "DELETE"):
                    continue
                raise Unreachable(self.url, e) from e
            except (OSError, http.client.HTTPException) as e:
                self.close()
                raise Unreachable(self.url, e) from e
            if resp.will_close:
                self.close()
            self._last_used = time.monotonic()
            return resp.status, resp.headers, data
        raise AssertionError("unreachable")


class Client:
    """A client of one DiCE node's HTTP API.

    ``url``, ``token_file`` and ``ca_file`` default, as the ``dice`` CLI's
    options do, to $DICE_NODE, $DICE_TOKEN_FILE and $DICE_CA_FILE. ``token``
    gives the bearer token itself instead of a file. An ``https://`` URL is
    verified against ``ca_file`` (else the system's CAs). One kept-alive
    connection is reused between calls; a Client is not thread-safe: give
    each thread its own.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None,
                 token_file: Optional[str] = None, ca_file: Optional[str] = None,
                 timeout: float = 10.0):
        if url is None:
            url = os.environ.get("DICE_NODE") or DEFAULT_URL
        self.url = url.rstrip("/")
        if token is not None and token_file is not None:
            raise ValueError("give token or token_file, not both")
        if token is None:
            if token_file is None:
                token_file = os.environ.get("DICE_TOKEN_FILE") or None
                option = "DICE_TOKEN_FILE"
            else:
                option = "token_file"
            if token_file:
                token = read_token_file(token_file, option)
        self._token = token
        if ca_file is None:
            ca_file = os.environ.get("DICE_CA_FILE") or None
        self.ca_file = ca_file
        self.timeout = timeout
        context = None
        if self.url.startswith("https://"):
            try:
                context = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as e:
                raise ValueError(f"ca_file: cannot load '{ca_file}': {e}") from e
        self._context = context
        self._conn = _Connection(self.url, timeout, context)

    # ---- plumbing -----------------------------------------------------------

    def close(self) -> None:
        """Close the kept-alive connection (the next call opens another)."""
        self._conn.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"dice.Client({self.url!r})"

    def _request(self, method: str, path: str, body: Any = None,
                 params: Optional[Dict[str, Any]] = None,
                 timeout: Optional[float] = None,
                 conn: Optional[_Connection] = None):
        """(status, JSON body) of a 2xx answer; raises a DiceError otherwise."""
        if params:
            q = {k: v for k, v in params.items() if v is not None}
            if q:
                path += "?" + urllib.parse.urlencode(q, safe=",")
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        status, resp_headers, raw = (conn or self._conn).request(
            method, path, data, headers, timeout)
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = None
            if 200 <= status < 300:
                raise DiceError(status, "answer is not JSON: "
                                + raw[:200].decode(errors="replace"), self.url)
        if 200 <= status < 300:
            return status, answer
        if isinstance(answer, dict) and isinstance(answer.get("error"), str):
            message = answer["error"]
        else:
            message = raw.decode(errors="replace").strip() or http.client.responses.get(status, "")
        if status == 401:
            message += (" (the node was started with --http-token-file: give the "
                        "client the same file with token_file= or DICE_TOKEN_FILE)"
                        if not self._token else
                        " (the token given holds another token than the node's)")
        retry_after = None
        if status in (429, 503):
            ra = resp_headers.get("Retry-After")
            try:
                retry_after = float(ra) if ra is not None else None
            except ValueError:
                retry_after = None
        raise error_for(status, message, self.url, retry_after)

    def _get(self, path: str, **params):
        return self._request("GET", path, params=params)[1]

    @staticmethod
    def _quote(s: str) -> str:
        return urllib.parse.quote(s, safe="")

    # ---- tasks --------------------------------------------------------------

    @staticmethod
    def _task_body(kind: str, payload: Any, priority: int = 0, locks: Sequence[str] = (),
                   time_limit=None, retries=None, backoff=None, delay=None, at=None,
                   expires=None, keep=None, key=None, data_objects=None, after=(),
                   on_parent_failure=None) -> Dict[str, Any]:
        if not isinstance(kind, str) or not kind:
            raise TypeError("kind: a non-empty string")
        if isinstance(payload, (bytes, bytearray)):
            payload = payload.decode()
        elif not isinstance(payload, str):
            # shell takes a JSON array of strings; anything else as JSON text
            payload = json.dumps(payload)
        if isinstance(locks, str):
            locks = [locks]
        body: Dict[str, Any] = {"kind": kind, "payload": payload,
                                "priority": int(priority)}
        if locks:
            body["locks"] = list(locks)
        if data_objects:
            body["data_objects"] = dict(data_objects)
        if time_limit is not None:
            body["time_limit_ms"] = _ms(time_limit, "time_limit")
        if retries is not None:
            body["retries"] = int(retries)
        if backoff is not None:
            body["backoff_ms"] = _ms(backoff, "backoff")
        if delay is not None and at is not None:
            raise ValueError("give delay or at, not both")
        if delay is not None:
            body["delay_ms"] = _ms(delay, "delay")
        if at is not None:
            body["not_before_ms"] = _wall_ms(at, "at")
        if expires is not None:
            if isinstance(expires, _dt.datetime):
                body["expires_ms"] = _wall_ms(expires, "expires")
            else:
                body["expires_in_ms"] = _ms(expires, "expires")
        if keep is not None:
            body["keep_for_ms"] = _ms(keep, "keep")
        if key is not None:
            body["key"] = str(key)
        if isinstance(after, str):
            after = [after]
        if after:
            body["after"] = list(after)
        if on_parent_failure is not None:
            body["on_parent_failure"] = on_parent_failure
        return body

    def submit_many(self, kind: str, payload: Any, count: int, *,
                    priority: int = 0, locks: Sequence[str] = (),
                    time_limit: Optional[Duration] = None,
                    retries: Optional[int] = None,
                    backoff: Optional[Duration] = None,
                    delay: Optional[Duration] = None, at: Optional[When] = None,
                    expires: Optional[Union[Duration, _dt.datetime]] = None,
                    keep: Optional[Duration] = None, key: Optional[str] = None,
                    data_objects: Optional[Dict[str, int]] = None,
                    after: Sequence[str] = (),
                    on_parent_failure: Optional[str] = None) -> List[str]:
        """Submit ``count`` (1 to 10,000) tasks alike, all or none; their ids.

        With a ``key`` the tasks' keys are KEY/1 … KEY/N and a repeat returns
        the same ids. Raises Busy (429/503: nothing was enqueued) or
        BadRequest (the node's reason)."""
        body = self._task_body(kind, payload, priority, locks, time_limit, retries,
                               backoff, delay, at, expires, keep, key, data_objects,
                               after, on_parent_failure)
        if int(count) != 1:
            body["count"] = int(count)
        _, answer = self._request("POST", "/tasks", body)
        return list(answer["ids"])

    def submit(self, kind: str, payload: Any, *, priority: int = 0,
               locks: Sequence[str] = (), time_limit: Optional[Duration] = None,
               retries: Optional[int] = None, backoff: Optional[Duration] = None,
               delay: Optional[Duration] = None, at: Optional[When] = None,
               expires: Optional[Union[Duration, _dt.datetime]] = None,
               keep: Optional[Duration] = None, key: Optional[str] = None,
               data_objects: Optional[Dict[str, int]] = None,
               after: Sequence[str] = (),
               on_parent_failure: Optional[str] = None) -> str:
        """Submit one task; its id.

        Durations (``time_limit``, ``backoff``, ``delay``, ``keep``, and
        ``expires`` when not a datetime) are seconds or timedeltas; ``at``
        and a datetime ``expires`` are points in time. ``retries``: failed
        executions run again up to this many times. ``key`` makes the submit
        idempotent: the same key gives the same task at any node. ``after``:
        the ids of tasks it runs after, once they are all done (a shell task
        reads their results from $DICE_PARENT_RESULT and the JSON file
        $DICE_PARENT_RESULTS_FILE); ``on_parent_failure="run"``: it runs
        even if one of them did not finish (else it is canceled)."""
        return self.submit_many(kind, payload, 1, priority=priority, locks=locks,
                                time_limit=time_limit, retries=retries,
                                backoff=backoff, delay=delay, at=at,
                                expires=expires, keep=keep, key=key,
                                data_objects=data_objects, after=after,
                                on_parent_failure=on_parent_failure)[0]

    def run(self, kind: str, payload: Any, *, timeout: Optional[float] = None,
            **policy) -> Task:
        """Submit one task and wait for its end, in one request while the
        node may hold it (``POST /tasks?wait_ms``), then as wait() does; the
        ended Task. ``policy``: submit()'s keyword arguments. Raises
        TimeoutError after ``timeout`` seconds (None: no limit)."""
        start = time.monotonic()
        wait_ms = MAX_TASK_WAIT_MS if timeout is None else \
            max(1, min(int(timeout * 1000), MAX_TASK_WAIT_MS))
        body = self._task_body(kind, payload, **policy)  # TypeError if unknown
        _, answer = self._request("POST", "/tasks", body, params={"wait_ms": wait_ms},
                                  timeout=self.timeout + wait_ms / 1000)
        task = Task.from_json(answer["tasks"][0])
        if task.ended:
            return task
        left = None if timeout is None else max(timeout - (time.monotonic() - start), 0)
        return self.wait(task.id, timeout=left)

    def submit_workflow(self, steps: Sequence[Dict[str, Any]],
                        key: Optional[str] = None) -> Dict[str, Any]:
        """Submit a graph of steps at once, all or none (docs/workflows.md):
        each step a dict with "name", "kind", "payload" (or "payloads", one
        task each) and "after" (names of earlier steps). Returns the answer:
        {"workflow": id, "steps": {name: [ids]}, "ids": [...]}."""
        body: Dict[str, Any] = {"steps": list(steps)}
        if key is not None:
            body["key"] = str(key)
        _, answer = self._request("POST", "/workflows", body)
        return answer

    def workflow(self, id: str) -> Dict[str, Any]:
        """The workflow's graph: its state, and each step's state and tasks."""
        return self._get("/workflows/" + self._quote(id))

    # ---- schedules ----------------------------------------------------------

    def add_schedule(self, name: str, kind: str, payload: Any, *,
                     every: Optional[Duration] = None, cron: Optional[str] = None,
                     jitter: Optional[Duration] = None,
                     catch_up: Optional[str] = None, exclusive: bool = False,
                     priority: int = 0, locks: Sequence[str] = (),
                     time_limit: Optional[Duration] = None,
                     retries: Optional[int] = None,
                     backoff: Optional[Duration] = None,
                     keep: Optional[Duration] = None) -> Dict[str, Any]:
        """Add a periodic schedule every node holds (docs/workflows.md): a
        tick ``every`` so long (from the epoch) or by ``cron`` (five fields,
        UTC), each tick one task of ``kind`` and ``payload``. ``catch_up``:
        "last" (default), "none" or "all" ticks missed while no node ran;
        ``exclusive``: each tick holds the lock schedule:NAME while it runs.
        Adding the same name again is the same schedule (``existing``)."""
        if (every is None) == (cron is None):
            raise ValueError("give every or cron, one of them")
        body: Dict[str, Any] = {"name": name}
        if every is not None:
            body["every_ms"] = _ms(every, "every")
        else:
            body["cron"] = cron
        if jitter is not None:
            body["jitter_ms"] = _ms(jitter, "jitter")
        if catch_up is not None:
            body["catch_up"] = catch_up
        if exclusive:
            body["exclusive"] = True
        body["task"] = self._task_body(kind, payload, priority, locks, time_limit,
                                       retries, backoff, None, None, None, keep,
                                       None, None)
        _, answer = self._request("POST", "/schedules", body)
        return answer

    def schedules(self) -> List[Dict[str, Any]]:
        """Every schedule the node holds, each with its ``next_tick_ms``."""
        return list(self._get("/schedules")["schedules"])

    def remove_schedule(self, name: str) -> None:
        """Remove the schedule ``name``; NotFound if there is none."""
        self._request("DELETE", "/schedules/" + self._quote(name))

    def status(self, id: str) -> Task:
        """The task ``id`` with its payload, result or reason and policy;
        NotFound if this node does not know it."""
        return Task.from_json(self._get("/tasks/" + self._quote(id)))

    def results(self, ids: Iterable[str]) -> Dict[str, Task]:
        """The tasks named, with ``result`` (done) or ``reason`` (failed),
        256 per request; ids this node does not know are left out."""
        ids = list(dict.fromkeys(ids))
        out: Dict[str, Task] = {}
        for i in range(0, len(ids), IDS_PER_REQUEST):
            chunk = ids[i:i + IDS_PER_REQUEST]
            answer = self._get("/tasks", ids=",".join(chunk), **{"with": "result"})
            for j in answer["tasks"]:
                out[j["id"]] = Task.from_json(j)
        return out

    def wait(self, ids: Union[str, Sequence[str]], timeout: Optional[float] = None,
             poll: float = 0.25, unknown_grace: float = 5.0
             ) -> Union[Task, List[Task]]:
        """Wait until the task (a str) or every task (a list) is in an end
        state; the Task or the list of Tasks in the order given. Between
        two looks at the tasks the node holds the request (``wait_ms``)
        until one of them ends, ``poll`` seconds at most, so the answer
        comes as soon as the last one ends.

        Raises TimeoutError after ``timeout`` seconds (None: no limit), and
        NotFound for a task this node has still not heard of after
        ``unknown_grace`` seconds (a replica may learn of a new task a
        moment after it was submitted elsewhere)."""
        single = isinstance(ids, str)
        wanted = [ids] if single else list(ids)
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        done: Dict[str, Task] = {}
        interval = min(0.02, poll)
        while True:
            pending = [i for i in wanted if i not in done]
            if not pending:
                return done[wanted[0]] if single else [done[i] for i in wanted]
            if single:
                try:
                    got = {wanted[0]: self.status(wanted[0])}
                except NotFound:
                    got = {}
            else:
                got = self.results(pending)
            for i, t in got.items():
                if t.ended:
                    done[i] = t
            pending = [i for i in wanted if i not in done]
            if not pending:
                continue  # every one ended: answered above
            now = time.monotonic()
            unknown = [i for i in pending if i not in got]
            if unknown and now - start > unknown_grace:
                raise NotFound(404, f"task '{unknown[0]}' unknown at this node"
                               + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""),
                               self.url)
            if deadline is not None and now >= deadline:
                raise TimeoutError(f"{len(pending)} of {len(wanted)} tasks not ended "
                                   f"after {timeout} s (first: {pending[0]}, "
                                   f"{got[pending[0]].state if pending[0] in got else 'unknown'})")
            sleep = poll if deadline is None else min(poll, deadline - now)
            known = [i for i in pending if i in got]
            if known and sleep >= 0.001:
                # The node answers when this task ends, or after the wait.
                wait_ms = min(int(sleep * 1000), MAX_TASK_WAIT_MS)
                try:
                    _, j = self._request("GET", "/tasks/" + self._quote(known[0]),
                                         params={"wait_ms": wait_ms},
                                         timeout=self.timeout + wait_ms / 1000)
                    t = Task.from_json(j)
                    if t.ended:  # the answer is that task's end: not asked again
                        done[known[0]] = t
                except NotFound:
                    pass  # forgotten meanwhile: the next look says so
            else:  # not heard of yet: look again soon
                time.sleep(max(min(interval, sleep), 0))
                interval = min(interval * 2, poll)

    def tasks(self, state: Optional[str] = None, kind: Optional[str] = None,
              node: Optional[str] = None, page_size: int = 1000) -> Iterator[Task]:
        """Every task matching the filters, in id order, fetched a page of
        ``page_size`` (1 to 10,000) at a time."""
        after = None
        while True:
            answer = self._get("/tasks", state=state, kind=kind, node=node,
                               limit=int(page_size), after=after)
            for j in answer["tasks"]:
                yield Task.from_json(j)
            after = answer.get("next_after")
            if not after:
                return

    def cancel(self, id: str) -> None:
        """Cancel a task that has not ended; NotFound if unknown, Conflict if
        it already ended."""
        self._request("POST", "/tasks/" + self._quote(id) + "/cancel")

    def remove(self, id: str) -> None:
        """Remove a task (the paper's removeByID); NotFound if unknown,
        Conflict if already removed."""
        self._request("DELETE", "/tasks/" + self._quote(id))

    # ---- the node and the cluster -----------------------------------------

    def health(self) -> Dict[str, Any]:
        """GET /health: {"id", "ok"} (answered without a token)."""
        return self._get("/health")

    def nodes(self) -> List[Dict[str, Any]]:
        """The members this node knows, itself included: dicts with id, addr,
        state (alive/suspect/dead), incarnation, last_seen_ms, super_peer,
        attached_to (the --super-peers election; None when off)."""
        return list(self._get("/nodes")["nodes"])

    def stats(self) -> Dict[str, Any]:
        """GET /stats: the node's counters."""
        return self._get("/stats")

    # ---- causal events ------------------------------------------------------

    def publish(self, topic: str, data: str) -> Event:
        """Publish an event to every node (causal order); the event as this
        node delivered it."""
        _, answer = self._request("POST", "/events", {"topic": topic, "data": data})
        return Event.from_json(answer)

    def watch(self, topic: Optional[str] = None, since: Optional[int] = None,
              count: Optional[int] = None, timeout: Optional[float] = None,
              poll: float = 0.25) -> Iterator[Event]:
        """The events of ``topic`` (all topics if None) this node delivered
        after delivery index ``since`` (None: from the oldest it keeps), in
        causal order, then those that come, polling every ``poll`` seconds.
        Ends after ``count`` events or once ``timeout`` seconds have passed
        (without either, it never ends)."""
        since = 0 if since is None else int(since)
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = 0
        while True:
            answer = self._get("/events", topic=topic, since=since)
            for j in answer["events"]:
                yield Event.from_json(j)
                seen += 1
                if count is not None and seen >= count:
                    return
            since = answer.get("next", since)
            if answer["events"]:
                continue
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                time.sleep(min(poll, left))
            else:
                time.sleep(poll)

    # ---- locks --------------------------------------------------------------

    def lock(self, name: str, timeout: Optional[float] = None,
             lease: float = 10.0) -> "Lock":
        """A cluster-wide lock, as a context manager::

            with client.lock("db1", timeout=30):
                ...   # no other holder of "db1" anywhere in the cluster

        Waits up to ``timeout`` seconds (None: no limit; TimeoutError after
        it). While held, a thread renews the lease every lease/4 seconds; if
        this process dies the lock is free within ``lease`` seconds. If the
        lease is lost anyway (the node could not renew it), leaving the block
        raises LockLost."""
        return Lock(self, name, timeout, lease)


class Lock:
    """A cluster-wide lock held through POST/DELETE /locks/NAME (see
    Client.lock). ``token`` is the node's token for this hold; ``lost`` turns
    true if a renewal found the lease gone."""

    def __init__(self, client: Client, name: str, timeout: Optional[float],
                 lease: float):
        if not 1.0 <= lease <= 600.0:
            raise ValueError("lease: 1 to 600 seconds")
        self.client = client
        self.name = name
        self.timeout = timeout
        self.lease_ms = int(lease * 1000)
        self.token: Optional[str] = None
        self.lost = False
        self.error: Optional[BaseException] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._path = "/locks/" + Client._quote(name)

    def _post(self, wait_ms: int, conn=None):
        body: Dict[str, Any] = {"wait_ms": wait_ms, "lease_ms": self.lease_ms}
        if self.token:
            body["token"] = self.token
        return self.client._request("POST", self._path, body,
                                    timeout=self.client.timeout + wait_ms / 1000,
                                    conn=conn)

    def acquire(self) -> "Lock":
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            left_ms = 1000 if deadline is None else int((deadline - time.monotonic()) * 1000)
            status, answer = self._post(max(0, min(left_ms, 1000)))
            self.token = answer["token"]
            if status == 200 and answer.get("held"):
                break
            if deadline is not None and time.monotonic() >= deadline:
                self._release_quietly()
                raise TimeoutError(f"lock '{self.name}' not held after {self.timeout} s")
        self._stop.clear()
        self._thread = threading.Thread(target=self._renew, daemon=True,
                                        name=f"dice-lock-{self.name}")
        self._thread.start()
        return self

    def _renew(self) -> None:
        # Its own connection: the caller keeps using the client's meanwhile.
        conn = _Connection(self.client.url, self.client.timeout, self.client._context)
        try:
            while not self._stop.wait(self.lease_ms / 4000):
                try:
                    self._post(0, conn=conn)
                except LockLost as e:
                    self.lost, self.error = True, e
                    return
                except DiceError as e:
                    # Busy or unreachable: try again at the next turn; the
                    # lease covers a few missed renewals.
                    self.error = e
        finally:
            conn.close()

    def _release_quietly(self) -> None:
        try:
            self.release()
        except DiceError:
            pass

    def release(self) -> None:
        """Stop renewing and give the lock back; raises LockLost if the lease
        was lost while held."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        token, self.token = self.token, None
        if token is None:
            return
        if not self.lost:
            try:
                self.client._request("DELETE", self._path, params={"token": token})
            except NotFound:
                self.lost = True
        if self.lost:
            raise LockLost(410, f"lock '{self.name}' was lost while held "
                           f"({self.error or 'its lease ran out'})", self.client.url)

    def __enter__(self) -> "Lock":
        return self.acquire()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            # Do not hide the block's own exception behind the lock's.
            try:
                self.release()
            except DiceError:
                pass
            return
        self.release()
