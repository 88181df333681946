"""The two task bodies every peer runs (RQ and the beanstalkd workers import
them directly; celery_app.py wraps them as Celery tasks)."""
import time


def noop():
    return None


def sleep(seconds):
    time.sleep(seconds)
