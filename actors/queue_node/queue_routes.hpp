#pragma once
// Which subsystem takes which event: the one routing table, used both by
// queue_node (all subsystems in one object) and by the actors of dice-node
// (one actor per subsystem). A sink offers `deliver<station>(event)`.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "known_tasks/task_state.hpp"
#include "queue_node/queue_events.hpp"
#include "queue_node/station.hpp"

namespace dice {

namespace detail {

template <station... To, class Event, class Sink>
void to_all(const Event& e, Sink& sink) {
  (sink.template deliver<To>(e), ...);
}

using S = station;

// clang-format off
template <class K> void route_one(const ev::task_changed& e, K& k) {
  to_all<S::ready_queue, S::ranking, S::running_tasks, S::world>(e, k);
}
template <class K> void route_one(const ev::claim_heard& e, K& k) { to_all<S::ranking, S::running_tasks>(e, k); }
template <class K> void route_one(const ev::running_heard& e, K& k) { to_all<S::running_tasks>(e, k); }
template <class K> void route_one(const ev::unknown_seen& e, K& k) { to_all<S::unknown_resolver>(e, k); }
template <class K> void route_one(const ev::spec_learned& e, K& k) { to_all<S::unknown_resolver>(e, k); }
template <class K> void route_one(const ev::stale_seen& e, K& k) { to_all<S::unknown_resolver>(e, k); }
template <class K> void route_one(const ev::known_question& e, K& k) { to_all<S::unknown_resolver>(e, k); }
template <class K> void route_one(const ev::answer_seen& e, K& k) { to_all<S::unknown_resolver>(e, k); }
template <class K> void route_one(const ev::replica_digest& e, K& k) { to_all<S::communication>(e, k); }
template <class K> void route_one(const ev::originate& e, K& k) { to_all<S::communication>(e, k); }
template <class K> void route_one(const ev::merge_message& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::merge_task& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::snapshot_wanted& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::question_heard& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::answer_due& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::tasks_adopted& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::member_recovered& e, K& k) { to_all<S::known_tasks>(e, k); }
template <class K> void route_one(const ev::live_nodes& e, K& k) { to_all<S::ready_queue, S::ranking>(e, k); }
template <class K> void route_one(const ev::free_slots& e, K& k) { to_all<S::ready_queue>(e, k); }
template <class K> void route_one(const ev::task_offer& e, K& k) { to_all<S::ranking>(e, k); }
template <class K> void route_one(const ev::execution_over& e, K& k) { to_all<S::ranking>(e, k); }
template <class K> void route_one(const ev::recover_member& e, K& k) { to_all<S::running_tasks>(e, k); }
template <class K> void route_one(const ev::start_execution& e, K& k) { to_all<S::running_tasks>(e, k); }
template <class K> void route_one(const ev::execution_report& e, K& k) { to_all<S::running_tasks>(e, k); }
template <class K> void route_one(const ev::broadcast& e, K& k) { to_all<S::bridge>(e, k); }
template <class K> void route_one(const ev::send_to& e, K& k) { to_all<S::communication>(e, k); }
template <class K> void route_one(const ev::unicast& e, K& k) { to_all<S::bridge>(e, k); }
template <class K> void route_one(const ev::run_order& e, K& k) { to_all<S::executor>(e, k); }
template <class K> void route_one(const ev::cancel_order& e, K& k) { to_all<S::executor>(e, k); }
template <class K> void route_one(const ev::acknowledged& e, K& k) { to_all<S::world>(e, k); }
// clang-format on

} // namespace detail

/// Hands `e` to every station that takes it.
template <class Sink>
void route(const ev::event& e, Sink& sink) {
  std::visit([&sink](const auto& x) { detail::route_one(x, sink); }, e);
}

} // namespace dice
