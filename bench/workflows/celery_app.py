"""Celery application of bench/workflows: Redis as broker (db 0) and result
backend (db 1) on the port run.sh gives in WORKFLOWS_REDIS_PORT.

WORKFLOWS_CELERY_MODE picks the configuration:
  default  Celery's defaults (early acks, prefetch multiplier 4, a broker
           visibility timeout of one hour)
  late     acknowledgement after the task ran (task_acks_late) and a broker
           visibility timeout of WORKFLOWS_VISIBILITY_S seconds (10), so that
           the messages a killed worker held come back to the queue
"""
import os

from celery import Celery

_url = f"redis://127.0.0.1:{os.environ['WORKFLOWS_REDIS_PORT']}"
app = Celery("workflows", broker=f"{_url}/0", backend=f"{_url}/1")
if os.environ.get("WORKFLOWS_CELERY_MODE", "default") == "late":
    app.conf.task_acks_late = True
    app.conf.broker_transport_options = {
        "visibility_timeout": float(os.environ.get("WORKFLOWS_VISIBILITY_S", "10"))}


@app.task(name="noop")
def noop():
    """A chord member or a chain step: does nothing (DiCE's kind echo with an
    empty payload)."""
    return None


@app.task(name="collect")
def collect(results):
    """The chord's callback: how many results it was given."""
    return len(results)
