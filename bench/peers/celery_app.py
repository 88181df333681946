"""Celery application of bench/peers: Redis as broker (db 0) and as result
backend (db 1), on the port run.sh gives in PEERS_REDIS_PORT. Everything
else is Celery's default (JSON, prefetch multiplier 4, early acks)."""
import os

from celery import Celery

import peer_jobs

_url = f"redis://127.0.0.1:{os.environ['PEERS_REDIS_PORT']}"
app = Celery("peers", broker=f"{_url}/0", backend=f"{_url}/1")
noop = app.task(name="noop")(peer_jobs.noop)
sleep = app.task(name="sleep")(peer_jobs.sleep)
