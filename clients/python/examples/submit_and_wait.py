#!/usr/bin/env python3
"""Submit a few tasks to a local DiCE node, wait for them, print the results.

    dice-node --id a --data-dir none &          # a node on 127.0.0.1:8400
    python3 examples/submit_and_wait.py         # or DICE_NODE=http://HOST:PORT

Runs from the source tree too (it finds the package next to it)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dice  # noqa: E402


def main() -> int:
    client = dice.Client()  # $DICE_NODE, $DICE_TOKEN_FILE, $DICE_CA_FILE
    try:
        print("node:", client.health()["id"])
        one = client.submit("echo", "hello, DiCE", retries=2, time_limit=30)
        many = client.submit_many("cpu", "10000", 5)
        task = client.wait(one, timeout=30)
        print(f"{task.id}: {task.state} on {task.node}: {task.result!r}")
        for t in client.wait(many, timeout=60):
            print(f"{t.id}: {t.state} on {t.node}: {t.result}")
    except dice.Unreachable as e:
        print(f"{e} (is a dice-node running? set DICE_NODE)", file=sys.stderr)
        return 1
    except dice.DiceError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
