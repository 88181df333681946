"""The errors of the DiCE client: one per answer a caller handles differently."""

from __future__ import annotations

from typing import Optional


class DiceError(Exception):
    """A node answered with an error status; ``status`` is the HTTP status
    (0 when there was no answer) and ``message`` the node's own words."""

    def __init__(self, status: int, message: str, url: str = ""):
        self.status = status
        self.message = message
        self.url = url
        super().__init__(f"{url} answered {status}: {message}" if url else message)


class BadRequest(DiceError):
    """400: the node refused the request as written (a kind no live member
    runs, a policy that cannot work, a bad parameter); ``message`` says why."""


class Unauthorized(DiceError):
    """401: the node was started with --http-token-file and the request
    carried no token or another one."""


class NotFound(DiceError):
    """404: no such task, route or lock token."""


class Conflict(DiceError):
    """409: the request does not fit the current state (a task that already
    ended cannot be canceled, a removed one cannot be removed again)."""


class Busy(DiceError):
    """429 or 503: nothing was done; ask again after ``retry_after`` seconds
    (None when the node did not say)."""

    def __init__(self, status: int, message: str, url: str = "",
                 retry_after: Optional[float] = None):
        self.retry_after = retry_after
        super().__init__(status, message, url)


class LockLost(DiceError):
    """410: the lock's lease lapsed or the node lost the lock; whatever ran
    under it was no longer protected."""


class Unreachable(DiceError):
    """No answer: the node could not be reached (refused, reset, timed out,
    a TLS handshake that failed). ``url`` is the node's URL and ``reason``
    the underlying exception."""

    def __init__(self, url: str, reason: BaseException):
        self.reason = reason
        DiceError.__init__(self, 0, f"cannot reach {url}: {reason}", "")
        self.url = url


def error_for(status: int, message: str, url: str,
              retry_after: Optional[float] = None) -> DiceError:
    if status == 400:
        return BadRequest(status, message, url)
    if status == 401:
        return Unauthorized(status, message, url)
    if status == 404:
        return NotFound(status, message, url)
    if status == 409:
        return Conflict(status, message, url)
    if status == 410:
        return LockLost(status, message, url)
    if status in (429, 503):
        return Busy(status, message, url, retry_after)
    return DiceError(status, message, url)
