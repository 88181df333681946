#pragma once
// What every queue subsystem actor does alike: it owns its state machine,
// handles one event at a time with the clock's time, and sends whatever the
// machine emitted to the actors the routing table names: other
// subsystems, the bridge, the executor, or the facade. Ticking subsystems
// (timers: claim windows, heartbeats, back-offs, compaction) tick when
// their machine has something due, at most once per tick_ms: an idle node
// of a large cluster sleeps instead of waking a hundred times a second.
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <tuple>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include <caf/typed_event_based_actor.hpp>

#include "common/time.hpp"
#include "queue/request_of.hpp"
#include "queue/queue_interfaces.hpp"
#include "common/tick_schedule.hpp"
#include "queue/queue_routes.hpp"
#include "queue/queue_trace.hpp"
#include "queue/subsystem_trace.hpp"

namespace dice {

template <class Machine>
struct subsystem_state {
  std::unique_ptr<Machine> machine;
  queue_wiring wiring;
  std::function<millis()> clock;
  tick_schedule ticks; // when the machine ticks next
  /// Runs before what an input emitted is sent (known_tasks: the journal
  /// takes the changes before any peer or user hears of them;
  /// communication: acknowledgements join the output).
  std::function<void(ev::events&)> before_dispatch;
  /// Runs after each tick (communication: membership gets the version
  /// vector heartbeats carry).
  std::function<void()> after_tick;
  /// A tick wanted besides the machine's deadlines (communication: at
  /// once, while membership has not been told the latest versions).
  std::function<std::optional<millis>()> due_also;
  /// Runs after every input: the counters go to the node's stats board.
  std::function<void()> post_stats;
  /// Tests only (queue_trace.hpp): where the inputs of the input being
  /// handled start in its output, and their trace ids.
  std::shared_ptr<queue_trace> trace;
  std::vector<std::pair<std::size_t, std::uint64_t>> marks;
  static inline const char* name = "queue_subsystem";
};

// What the bridge and the executor take of the queue's events, in their
// own messages. Of a batch, the broadcasts that need not wait go to the
// bridge as one message, so a burst leaves in as few datagrams as fit.
// They take what the sink hands them by value: moved when it is the
// sender's own, copied when another station gets it too.
template <class Self>
void to_bridge(Self* self, const broadcast_bridge& b, ev::broadcast e) {
  if (e.hold_ms > 0)
    self->send(b, piggyback_atom_v, std::move(e.message), e.hold_ms);
  else
    self->send(b, broadcast_atom_v, std::move(e.message));
}
template <class Self>
void to_bridge(Self* self, const broadcast_bridge& b, ev::unicast e) {
  self->send(b, send_to_atom_v, std::move(e.peer), std::move(e.message));
}
template <class Self>
void to_bridge(Self* self, const broadcast_bridge& b, ev::batch e) {
  std::vector<wire::Message> now;
  for (auto& x : e.items) {
    if (auto* c = std::get_if<ev::broadcast>(&x); c && c->hold_ms == 0)
      now.push_back(std::move(c->message));
    else if (c != nullptr)
      to_bridge(self, b, std::move(*c));
    else if (auto* u = std::get_if<ev::unicast>(&x))
      to_bridge(self, b, std::move(*u));
  }
  if (now.size() == 1)
    self->send(b, broadcast_atom_v, std::move(now.front()));
  else if (!now.empty())
    self->send(b, broadcast_atom_v, std::move(now));
}
template <class Self>
void to_executor(Self* self, const executor& x, const ev::run_order& e) {
  self->send(x, run_atom_v, execution_request_of(e.task_id, e.attempt, *e.spec));
}
template <class Self>
void to_executor(Self* self, const executor& x, const ev::cancel_order& e) {
  self->send(x, cancel_atom_v, e.task_id);
}
template <class Self>
void to_executor(Self* self, const executor& x, const ev::batch& e) {
  for (const auto& item : e.items)
    std::visit(
      [&](const auto& y) {
        using Y = std::decay_t<decltype(y)>;
        if constexpr (std::is_same_v<Y, ev::run_order>
                      || std::is_same_v<Y, ev::cancel_order>)
          to_executor(self, x, y);
      },
      item);
}

/// Sends each emitted event to the actor of its station.
template <class Self>
struct actor_sink {
  Self* self;
  const queue_handles& to;

  // A batch made for one station moves into its mailbox, not copied.
  template <station S, class E>
  void deliver(E&& e) {
    if constexpr (S == station::bridge)
      to_bridge(self, to.bridge, std::forward<E>(e));
    else if constexpr (S == station::executor)
      to_executor(self, to.exec, e);
    else
      self->send(handle_of<S>(to), std::forward<E>(e));
  }
};

/// `max_tick_ms`: a subsystem on the claim path (ranking's windows,
/// ready_queue's offers) must not wait for tick_ms pacing; it ticks only
/// while it has something due, so an idle node still sleeps.
template <class Self, class Machine>
void start_subsystem(Self* self, const subsystem_config& cfg,
                     std::unique_ptr<Machine> machine,
                     millis max_tick_ms = std::numeric_limits<millis>::max()) {
  auto& st = self->state;
  st.machine = std::move(machine);
  st.clock = cfg.clock ? cfg.clock : wall_clock_ms;
  st.ticks.set_min_gap(std::min(cfg.tick_ms, max_tick_ms));
  st.trace = cfg.trace;
}

/// After every input the machine handled, its counters go to the board.
template <class Self>
void post_counters(Self* self, const subsystem_config& cfg,
                   stats_board::poster who) {
  if (auto board = cfg.board)
    self->state.post_stats = [self, board, who] {
      board->post(who, self->state.machine->counters());
    };
}

/// Counts the events each station gets.
struct station_counts {
  std::array<std::size_t, station_count> n{};

  template <station S, class E>
  void deliver(E&&) {
    ++n[static_cast<std::size_t>(S)];
  }
};

/// Sends a station that gets one event that event as it is (the typed
/// send proves at compile time that the station takes it), and gathers
/// the events of a station that gets several into one ev::batch.
template <class Self>
struct batching_sink {
  actor_sink<Self> single;
  const station_counts& counts;
  std::array<ev::events, station_count> batches{};

  template <station S, class E>
  void deliver(E&& e) {
    constexpr auto i = static_cast<std::size_t>(S);
    if (counts.n[i] == 1)
      single.template deliver<S>(std::forward<E>(e));
    else
      batches[i].emplace_back(std::forward<E>(e));
  }

  template <station S>
  void send_batch() {
    auto& items = batches[static_cast<std::size_t>(S)];
    if (!items.empty())
      single.template deliver<S>(ev::batch{std::move(items)});
  }

  void send_batches() {
    for_each_station([this](auto s) { send_batch<s()>(); });
  }
};

template <class Self>
void dispatch(Self* self, ev::events& out) {
  if (self->state.before_dispatch)
    self->state.before_dispatch(out);
  if (self->state.post_stats)
    self->state.post_stats();
  // The wiring is every actor's first message, so it is there when events
  // flow; an event emitted before would have nowhere to go.
  if (!self->state.wiring || out.empty()) {
    self->state.marks.clear();
    return;
  }
  if (self->state.trace)
    trace_sent(self, out);
  actor_sink<Self> sink{self, *self->state.wiring};
  // `out` is dropped after this: events move on where they can.
  if (out.size() == 1)
    return route_out(out.front(), sink);
  station_counts counts;
  for (const auto& e : out)
    route(e, counts);
  batching_sink<Self> batcher{sink, counts};
  for (auto& e : out)
    route_out(e, batcher);
  batcher.send_batches();
}

/// Hands the machine each event of a batch, in order. Only events the
/// machine takes can be in it: the routing that batched them sends a lone
/// event of the same type to the same station through a typed send.
template <class Machine, class Before>
void feed(Machine& m, const ev::batch& b, millis now, ev::events& out,
          Before before) {
  for (const auto& e : b.items)
    std::visit(
      [&](const auto& x) {
        if constexpr (takes<Machine, std::decay_t<decltype(x)>>::value) {
          before(e);
          m.on(x, now, out);
        }
      },
      e);
}

template <class M, class = void>
struct has_next_due : std::false_type {};
template <class M>
struct has_next_due<M, std::void_t<decltype(std::declval<const M&>().next_due())>>
  : std::true_type {};

/// Schedules a tick for the machine's next deadline (or `also`, if
/// earlier), no sooner than tick_ms after the last tick. A tick already
/// on its way in time is enough.
template <class Self>
void arm(Self* self) {
  auto& st = self->state;
  auto due = st.machine->next_due();
  auto also = st.due_also ? st.due_also() : std::nullopt;
  if (also && (!due || *also < *due))
    due = also;
  if (!due || !st.wiring)
    return; // nothing due: no clock read on an input's path
  auto t = st.ticks.arm(due, st.clock());
  if (!t)
    return;
  // A tick due now needs no timer: the clock's thread would only be woken
  // to hand the message back at once.
  if (t->delay == 0)
    self->send(self, tick_atom_v, t->seq);
  else
    self->delayed_send(self, std::chrono::milliseconds(t->delay), tick_atom_v,
                       t->seq);
}

/// Runs one input through the machine (`f(machine, now, out)`), sends on
/// what it emitted and schedules the machine's next tick; returns what `f`
/// returns (a user operation's answer). `input` names an input from outside
/// the queue for the trace.
template <class Self, class F>
auto handle_input(Self* self, F&& f, const char* input = nullptr) {
  using machine_type = typename decltype(self->state.machine)::element_type;
  ev::events out;
  if (input)
    trace_outside(self, out, input);
  auto finish = [&] {
    dispatch(self, out);
    if constexpr (has_next_due<machine_type>::value)
      arm(self);
  };
  using result = decltype(f(*self->state.machine, millis{}, out));
  if constexpr (std::is_void_v<result>) {
    f(*self->state.machine, self->state.clock(), out);
    finish();
  } else {
    auto r = f(*self->state.machine, self->state.clock(), out);
    finish();
    return r;
  }
}

/// Hands the machine one event, or a batch of them, and sends on what they
/// emitted, at once.
template <class Self, class E>
void handle(Self* self, const E& e) {
  auto from = self->state.trace ? sender_station(self) : std::nullopt;
  handle_input(self, [&](auto& m, millis now, ev::events& out) {
    if constexpr (std::is_same_v<E, ev::batch>) {
      feed(m, e, now, out,
           [&](const ev::event& x) { trace_taking(self, out, from, x); });
    } else {
      if (self->state.trace)
        trace_taking(self, out, from, ev::event{e});
      m.on(e, now, out);
    }
  });
}

template <class Self>
void tick(Self* self, std::uint64_t seq) {
  auto& st = self->state;
  auto now = st.clock();
  if (!st.ticks.fire(seq, now))
    return; // superseded: the scheduled one comes
  ev::events out;
  trace_outside(self, out, "tick");
  st.machine->tick(now, out);
  dispatch(self, out);
  if (st.after_tick)
    st.after_tick();
  arm(self);
}

/// Takes the wiring; a ticking machine's timer starts with it.
template <class Self>
void wire_up(Self* self, queue_wiring w) {
  using machine_type = typename decltype(self->state.machine)::element_type;
  bool first = !self->state.wiring;
  self->state.wiring = std::move(w);
  if constexpr (ticks<machine_type>::value)
    if (first)
      self->send(self, tick_atom_v, tick_schedule::unscheduled);
}

/// The handlers every subsystem actor has, from its machine: the wiring, a
/// batch, one per event the machine takes, and a tick if it ticks.
template <class Machine, class Self, class... Es>
auto subsystem_handlers(Self* self, std::tuple<Es...>*) {
  auto common = std::make_tuple(
    [self](queue_wiring& w) { wire_up(self, std::move(w)); },
    [self](const ev::batch& b) { handle(self, b); },
    [self](const Es& e) { handle(self, e); }...);
  if constexpr (ticks<Machine>::value)
    return std::tuple_cat(std::move(common),
                          std::make_tuple([self](tick_atom, std::uint64_t seq) {
                            tick(self, seq);
                          }));
  else
    return common;
}

/// Spawns the actor `Actor` of `Machine`: `setup(self)` starts the machine
/// and returns a tuple of the handlers the actor has besides the common
/// ones (std::tuple<>{} for none).
template <class Actor, class Machine, class State = subsystem_state<Machine>,
          class Setup>
Actor spawn_subsystem(caf::actor_system& sys, Setup setup) {
  using self_ptr = typename Actor::template stateful_pointer<State>;
  return sys.spawn([setup](self_ptr self) -> typename Actor::behavior_type {
    auto extra = setup(self);
    auto all = std::tuple_cat(
      subsystem_handlers<Machine>(self, static_cast<inputs_of<Machine>*>(nullptr)),
      std::move(extra));
    return std::apply(
      [](auto&&... hs) {
        return typename Actor::behavior_type{std::move(hs)...};
      },
      std::move(all));
  });
}

} // namespace dice
