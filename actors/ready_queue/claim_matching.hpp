#pragma once
// Which ready tasks this node claims at once. Every node computes the same
// greedy matching of ready tasks to the free slots of the live nodes: tasks
// in one order common to all nodes (ready_queue with an empty node id), each
// to the free node that ranks best for it by rendezvous hash. Nodes that
// see the same tasks and the same free slots claim disjoint tasks with no
// wait; where views differ the claims may collide, and the lottery settles
// them as it settles any other.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace dice {

/// The tasks of `tasks` (in the common order) matched to `self`, at most
/// `free_slots.at(self)` of them. `free_slots`: free slots per node, this
/// one included; nodes with none may be left out.
std::vector<std::string>
match_claims(const std::vector<std::string>& tasks,
             std::map<std::string, std::size_t> free_slots,
             const std::string& self);

} // namespace dice
