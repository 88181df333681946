#pragma once
// The CAF type-ID block: every type and atom that travels between DiCE's
// actors inside one process. Wire messages cross process boundaries only as
// protobuf bytes, never through CAF serialization.
#include <caf/type_id.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>

#include "broadcast_bridge/bridge_counters.hpp"
#include "broadcast_bridge/transport.hpp"
#include "dice.pb.h"
#include "dice/atoms.hpp"

// These types travel between actors of one process only (never through CAF's
// serialization), so they need no inspect().
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::wire::Message)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::wire::Message>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::bridge_counters)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::datagram>)

// After the embedding API's block (include/dice/atoms.hpp).
CAF_BEGIN_TYPE_ID_BLOCK(dice, caf::id_block::dice_embed::end)
  // bridge
  CAF_ADD_ATOM(dice, dice, broadcast_atom, "broadcast")
  CAF_ADD_ATOM(dice, dice, send_atom, "send")
  CAF_ADD_ATOM(dice, dice, send_to_atom, "sendto")
  CAF_ADD_ATOM(dice, dice, peers_atom, "peers")
  CAF_ADD_ATOM(dice, dice, subscribe_atom, "subscribe")
  CAF_ADD_ATOM(dice, dice, inbound_atom, "inbound")
  CAF_ADD_ATOM(dice, dice, datagram_atom, "datagram")
  CAF_ADD_ATOM(dice, dice, flush_atom, "flush")
  CAF_ADD_ATOM(dice, dice, piggyback_atom, "piggyback")
  CAF_ADD_ATOM(dice, dice, stats_atom, "stats")
  // membership
  CAF_ADD_ATOM(dice, dice, nodes_atom, "nodes")
  CAF_ADD_ATOM(dice, dice, tick_atom, "tick")
  CAF_ADD_ATOM(dice, dice, peer_event_atom, "peerevent")
  // executor
  CAF_ADD_ATOM(dice, dice, run_atom, "run")
  CAF_ADD_ATOM(dice, dice, cancel_atom, "cancel")
  CAF_ADD_ATOM(dice, dice, executed_atom, "executed")
  CAF_ADD_ATOM(dice, dice, begun_atom, "begun")
  // replicated queue
  CAF_ADD_ATOM(dice, dice, submit_atom, "submit")
  CAF_ADD_ATOM(dice, dice, remove_atom, "remove")
  CAF_ADD_ATOM(dice, dice, tasks_atom, "tasks")
  CAF_ADD_ATOM(dice, dice, versions_atom, "versions")
  CAF_ADD_ATOM(dice, dice, drain_atom, "drain")
  // election
  CAF_ADD_ATOM(dice, dice, election_atom, "election")
  CAF_ADD_ATOM(dice, dice, coordinator_atom, "coord")
  CAF_ADD_ATOM(dice, dice, task_event_atom, "taskevent")
  // the replica's journal
  CAF_ADD_ATOM(dice, dice, restore_atom, "restore")
  // capabilities: what the live members can run
  CAF_ADD_ATOM(dice, dice, runners_atom, "runners")
  // cluster-wide locks (issue 19, seed 001)
  CAF_ADD_ATOM(dice, dice, lock_atom, "lock")
  CAF_ADD_ATOM(dice, dice, unlock_atom, "unlock")
  CAF_ADD_ATOM(dice, dice, locks_atom, "locks")
  // causal broadcast of user events (issue 19, seed 001)
  CAF_ADD_ATOM(dice, dice, publish_atom, "publish")
  CAF_ADD_ATOM(dice, dice, events_atom, "events")
  CAF_ADD_ATOM(dice, dice, causal_atom, "causal")
  // the cluster keyring (issue 32): list, install, use, remove
  CAF_ADD_ATOM(dice, dice, keys_atom, "keys")
  CAF_ADD_ATOM(dice, dice, install_atom, "install")
  CAF_ADD_ATOM(dice, dice, use_atom, "use")
  // workers outside the node: join, take, finish, leave, list; what it runs
  CAF_ADD_ATOM(dice, dice, join_atom, "join")
  CAF_ADD_ATOM(dice, dice, take_atom, "take")
  CAF_ADD_ATOM(dice, dice, finish_atom, "finish")
  CAF_ADD_ATOM(dice, dice, leave_atom, "leave")
  CAF_ADD_ATOM(dice, dice, workers_atom, "workers")
  CAF_ADD_ATOM(dice, dice, kinds_atom, "kinds")
CAF_END_TYPE_ID_BLOCK(dice)
