#!/usr/bin/env python3
"""Serve the `wordcount` kind from Python through a local DiCE node.

    dice-node --id a --data-dir none &              # a node on 127.0.0.1:8400
    python3 examples/worker.py &                    # or DICE_NODE=http://HOST:PORT
    dice submit wordcount "to be or not to be" --wait

Any node of the cluster can take `wordcount` tasks while this runs; stop it
with Ctrl-C or SIGTERM: it finishes what it runs, then leaves. Runs from the
source tree too (it finds the package next to it)."""

import collections
import json
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dice  # noqa: E402

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
worker = dice.Worker(concurrency=4)  # $DICE_NODE, $DICE_TOKEN_FILE, $DICE_CA_FILE


@worker.kind("wordcount")
def wordcount(payload):
    """The three most frequent words of the payload, as JSON."""
    words = payload.lower().split()
    if not words:
        raise dice.FinalFailure("no words to count")  # no retry can fix it
    return json.dumps(collections.Counter(words).most_common(3))


if __name__ == "__main__":
    worker.run()
