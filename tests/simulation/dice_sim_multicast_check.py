#!/usr/bin/env python3
"""Runs dice-sim twice with the given arguments, sending direct and then
with --multicast, and checks what an operator choosing a multicast group
expects: both runs converge with every task DONE and no invariant broken,
and a node sends less than half as many datagrams per task through the
group as it sends direct (one datagram per broadcast instead of N-1)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dice_sim_check import checked_run  # noqa: E402


def main():
    cmd = sys.argv[1:]
    direct, _ = checked_run(cmd)
    group, _ = checked_run(cmd + ["--multicast"])
    sent_direct = direct["node_sent_per_task"]
    sent_group = group["node_sent_per_task"]
    print(f"datagrams a node sent per task: direct {sent_direct:.2f}, "
          f"multicast {sent_group:.2f}; received: direct "
          f"{direct['node_received_per_task']:.2f}, multicast "
          f"{group['node_received_per_task']:.2f}")
    if not sent_group < sent_direct / 2:
        sys.exit(f"FAILED (seed {group.get('seed')}): multicast sent "
                 f"{sent_group:.2f} datagrams per task per node, direct "
                 f"{sent_direct:.2f}")


main()
