#pragma once
// Which ready tasks this node claims at once. Every node computes the same
// matching of the first ready tasks to the free slots of the live nodes:
// the nodes with free slots take turns (in a fixed order, so a claim of
// any task moves no other node's pick), each taking, from the first class of tasks (priority, then
// re-queued first) with one left, the one that ranks best for it by
// rendezvous hash. Nodes that see the same tasks and the same free slots
// claim disjoint tasks with no wait; a node that thinks it is the only one
// free takes its own favourite, so nodes whose views differ rarely pick the
// same task; when they do, the lottery settles it as it settles any other
// collision. Before the turns, a node with a free slot takes its own
// first-attempt tasks of the first class: it claims a task it submits at
// once (ranking_machine), and every other node must leave it that task.
// In a large cluster only the first nodes with a free seat, in the order
// of turns, take part (ready_queue_machine::matched).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace dice {

/// For the tasks a node submitted and claims first, that node (the task's
/// enqueuer; first attempts only).
using task_owners = std::map<std::string, std::string>;

/// `nodes` in the order they take turns in the matching: fixed per node,
/// so that a node's turn moves only when nodes come or go.
std::vector<std::string> in_turn_order(std::vector<std::string> nodes);

/// The tasks matched to `self`, at most `free_slots.at(self)` of them.
/// `classes`: the candidate tasks, grouped by class, the class walked first
/// first. `free_slots`: free slots per node, this one included; nodes with
/// none may be left out.
std::vector<std::string>
match_claims(const std::vector<std::vector<std::string>>& classes,
             std::map<std::string, std::size_t> free_slots,
             const std::string& self);

/// The tasks matched to `self` when nodes hold claims beyond their slots
/// (prefetch): the free slots of every node are matched first, then the
/// free prefetch seats take what is left, so a task never waits behind a
/// running one while a slot elsewhere is free. Slots, then prefetch seats,
/// in the order returned.
/// `owners`: the first class's tasks that go to their enqueuer's free slot
/// before the turns.
std::vector<std::string>
match_seats(std::vector<std::vector<std::string>> classes,
            const std::map<std::string, std::size_t>& free_slots,
            const std::map<std::string, std::size_t>& free_prefetch,
            const std::string& self, const task_owners& owners = {});

} // namespace dice
