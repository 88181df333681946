#pragma once
// How a subsystem actor feeds the queue's trace (queue_trace.hpp), when its
// node has one (tests): which station sent the message it handles, where
// each input starts in what the machine emitted, and every emitted event
// with the input that caused it. Each function is a no-op without a trace.
#include <optional>
#include <utility>

#include <caf/actor_cast.hpp>

#include "queue/queue_interfaces.hpp"
#include "queue/queue_routes.hpp"
#include "queue/queue_trace.hpp"

namespace dice {

template <class Self>
constexpr station station_of_actor() {
  using machine_type =
    typename decltype(std::declval<Self&>().state.machine)::element_type;
  return station_of<machine_type>();
}

/// The station of the actor that sent the message being handled; nullopt
/// if none of the queue's (membership, a timer, the node).
template <class Self>
std::optional<station> sender_station(Self* self) {
  const auto& w = self->state.wiring;
  auto from = self->current_sender();
  if (!w || !from)
    return std::nullopt;
  std::optional<station> found;
  for_each_station([&](auto s) {
    if (s() != station::world
        && from == caf::actor_cast<caf::strong_actor_ptr>(handle_of<s()>(*w)))
      found = s();
  });
  return found;
}

/// Traces an input from outside the queue that starts at out[out.size()].
template <class Self>
void trace_outside(Self* self, const ev::events& out, const char* input,
                   const wire::Message* message = nullptr) {
  auto& st = self->state;
  if (st.trace)
    st.marks.emplace_back(out.size(), st.trace->outside(station_of_actor<Self>(),
                                                        input, message));
}

/// Traces an event from `from` that starts at out[out.size()].
template <class Self>
void trace_taking(Self* self, const ev::events& out,
                  std::optional<station> from, const ev::event& e) {
  auto& st = self->state;
  if (st.trace)
    st.marks.emplace_back(out.size(),
                          st.trace->taking(station_of_actor<Self>(), from, e));
}

/// Hands the trace every event of `out` with the input that emitted it.
template <class Self>
struct trace_sink {
  Self* self;
  std::uint64_t cause = 0;

  template <station S, class E>
  void deliver(const E& e) {
    self->state.trace->sent(station_of_actor<Self>(), S, ev::event{e}, cause);
  }
};

template <class Self>
void trace_sent(Self* self, const ev::events& out) {
  auto& st = self->state;
  trace_sink<Self> sink{self};
  auto mark = st.marks.begin();
  for (std::size_t i = 0; i < out.size(); ++i) {
    while (mark != st.marks.end() && mark->first <= i)
      sink.cause = (mark++)->second;
    route(out[i], sink);
  }
  st.marks.clear();
}

} // namespace dice
