"""The Python client of DiCE, the broker-less replicated task queue.

    import dice
    c = dice.Client("http://127.0.0.1:8400")
    task = c.wait(c.submit("echo", "hello"), timeout=10)
    print(task.state, task.result)

    w = dice.Worker("http://127.0.0.1:8400", concurrency=4)

    @w.kind("upper")
    def upper(payload):
        return payload.upper()

    w.run()
"""

from .client import END_STATES, Client, Event, Lock, Task, read_token_file
from .worker import FinalFailure, Job, Worker
from .errors import (BadRequest, Busy, Conflict, DiceError, LockLost, NotFound,
                     Unauthorized, Unreachable)

__all__ = ["Client", "Worker", "Job", "FinalFailure", "Task", "Event", "Lock", "END_STATES", "read_token_file",
           "DiceError", "BadRequest", "Unauthorized", "NotFound", "Conflict",
           "Busy", "LockLost", "Unreachable"]
__version__ = "0.1.0"
