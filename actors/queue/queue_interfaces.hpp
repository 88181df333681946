#pragma once
// The typed interfaces of the queue's subsystem actors (one per folder:
// communication, known_tasks, ready_queue, ranking, running_tasks,
// unknown_resolver) and of the node facade that fronts
// them (replicated_queue.hpp). Each actor drives the state machine of its
// folder; the events between them are those of vocabulary/queue_events.hpp,
// routed by queue/queue_routes.hpp. Which events an actor takes follows
// from its machine's `on` overloads; only what an actor takes besides
// (datagrams, user operations, the executor's report) is listed here.
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "broadcast_bridge/broadcast_bridge.hpp"
#include "executor/executor.hpp"
#include "known_tasks/task_query.hpp"
#include "membership/membership.hpp"
#include "membership/node_view.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"
#include "queue/queue_routes.hpp"
#include "queue/stats_board.hpp"
#include "type_ids.hpp"

namespace dice {

class replica_journal;
struct queue_handles;
class queue_trace;
/// Sent once to every subsystem actor before anything else.
using queue_wiring = std::shared_ptr<const queue_handles>;

} // namespace dice

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::wire::TaskSpec)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::wire::TaskSpec>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::task_row)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::task_row>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::task_query)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::task_counts)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<dice::runner_capabilities>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::runner_capabilities)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::queue_counters)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::queue_wiring)
// Every queue event travels between actors of one process as it is.
#define DICE_ALLOW_EVENT(name) CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::ev::name)
DICE_QUEUE_EVENTS(DICE_ALLOW_EVENT)
#undef DICE_ALLOW_EVENT
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(dice::ev::batch)

namespace dice {

using caf::reacts_to;
using caf::replies_to;

namespace detail {

template <class Inputs, class... Extra>
struct subsystem_signatures;
template <class... Es, class... Extra>
struct subsystem_signatures<std::tuple<Es...>, Extra...> {
  using type = caf::typed_actor<reacts_to<queue_wiring>, reacts_to<ev::batch>,
                                reacts_to<Es>..., Extra...>;
};

} // namespace detail

/// A subsystem actor's typed interface, derived from its machine: the
/// wiring, a batch, each event the machine has an `on` for, and a tick if
/// it ticks. An actor that takes more extends it.
template <class Machine>
using subsystem_actor = std::conditional_t<
  ticks<Machine>::value,
  typename detail::subsystem_signatures<inputs_of<Machine>,
                                        reacts_to<tick_atom, std::uint64_t>>::type,
  typename detail::subsystem_signatures<inputs_of<Machine>>::type>;

using communication_actor = subsystem_actor<communication_machine>::extend<
  reacts_to<inbound_atom, wire::Message>,  // queue, sync, heartbeats
  reacts_to<inbound_atom, std::vector<wire::Message>>, // several at once
  reacts_to<peer_event_atom, peer_change>, // deaths and restarts
  reacts_to<coordinator_atom, std::string>>; // the election's outcome

using known_tasks_actor = subsystem_actor<known_tasks_machine>::extend<
  // once wired: load the journal's replica (when it has one)
  reacts_to<restore_atom>,
  // the paper's enqueue, of one or several tasks at once (a submit with a
  // count): the ids refused (empty or already known)
  replies_to<submit_atom, std::vector<wire::TaskSpec>>::with<
    std::vector<std::string>>,
  // the paper's removeByID, and cancel: false if refused
  replies_to<remove_atom, std::string>::with<bool>,
  replies_to<cancel_atom, std::string>::with<bool>,
  // the API's question: some tasks (counts go to the stats board)
  replies_to<tasks_atom, task_query>::with<std::vector<task_row>>>;

using ready_queue_actor = subsystem_actor<ready_queue_machine>;

using ranking_actor = subsystem_actor<ranking_machine>;

using running_tasks_actor = subsystem_actor<running_tasks_machine>::extend<
  reacts_to<begun_atom, execution_result>,     // the executor: a slot took it
  reacts_to<executed_atom, execution_result>>; // the executor's report

using unknown_resolver_actor = subsystem_actor<unknown_resolver_machine>;

/// What the subsystems tell the user (the node facade takes these); what
/// they send the bridge and the executor goes to those directly.
using queue_world = caf::typed_actor<
  reacts_to<ev::batch>,
  reacts_to<ev::task_changed>, reacts_to<ev::acknowledged>>;

struct queue_handles {
  communication_actor communication;
  known_tasks_actor known_tasks;
  ready_queue_actor ready_queue;
  ranking_actor ranking;
  running_tasks_actor running_tasks;
  unknown_resolver_actor unknown_resolver;
  broadcast_bridge bridge;
  executor exec;
  queue_world world;
};

/// The actor of station S: the one place that names each station's field.
template <station S>
const auto& handle_of(const queue_handles& h) {
  if constexpr (S == station::communication) return h.communication;
  else if constexpr (S == station::known_tasks) return h.known_tasks;
  else if constexpr (S == station::ready_queue) return h.ready_queue;
  else if constexpr (S == station::ranking) return h.ranking;
  else if constexpr (S == station::running_tasks) return h.running_tasks;
  else if constexpr (S == station::unknown_resolver) return h.unknown_resolver;
  else if constexpr (S == station::bridge) return h.bridge;
  else if constexpr (S == station::executor) return h.exec;
  else return h.world;
}

/// Calls f(std::integral_constant<station, S>{}) for every station S, in
/// the order of the enum.
template <class F, std::size_t... I>
void for_each_station(F&& f, std::index_sequence<I...>) {
  (f(std::integral_constant<station, static_cast<station>(I)>{}), ...);
}
template <class F>
void for_each_station(F&& f) {
  for_each_station(f, std::make_index_sequence<station_count>{});
}

/// What every subsystem actor of one node starts from: what its machine
/// is built from, and what the actor needs besides.
struct subsystem_config : machine_config {
  millis tick_ms = 10;
  std::function<millis()> clock; // the wall clock if unset
  /// Where the counting subsystems post their counters (none: not posted).
  std::shared_ptr<stats_board> board;
  /// Tests: every input of every subsystem (queue_trace.hpp); none in
  /// production.
  std::shared_ptr<queue_trace> trace;
};

communication_actor spawn_communication(caf::actor_system& sys,
                                        const subsystem_config& cfg,
                                        membership members);
known_tasks_actor spawn_known_tasks(caf::actor_system& sys,
                                    const subsystem_config& cfg,
                                    std::shared_ptr<replica_journal> journal);
ready_queue_actor spawn_ready_queue(caf::actor_system& sys,
                                    const subsystem_config& cfg);
ranking_actor spawn_ranking(caf::actor_system& sys,
                            const subsystem_config& cfg);
running_tasks_actor spawn_running_tasks(caf::actor_system& sys,
                                        const subsystem_config& cfg);
unknown_resolver_actor spawn_unknown_resolver(caf::actor_system& sys,
                                              const subsystem_config& cfg);

} // namespace dice
