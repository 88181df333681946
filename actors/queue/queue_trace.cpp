#include "queue/queue_trace.hpp"

namespace dice {

namespace {

std::size_t at(station s) {
  return static_cast<std::size_t>(s);
}

} // namespace

std::uint64_t queue_trace::outside(station where, const char* input,
                                   const wire::Message* message) {
  trace_point p{where, nullptr, input, message, next_++, 0};
  sink_(p);
  return p.id;
}

std::uint64_t queue_trace::taking(station where, std::optional<station> from,
                                  const ev::event& e) {
  std::uint64_t cause = 0;
  if (from && is_subsystem(*from)) {
    auto& fifo = causes_[at(*from)][at(where)];
    // Empty only if a message bypassed sent(): the event shows as a root.
    if (!fifo.empty()) {
      cause = fifo.front();
      fifo.pop_front();
    }
  }
  trace_point p{where, &e, "", nullptr, next_++, cause};
  sink_(p);
  return p.id;
}

void queue_trace::sent(station from, station to, const ev::event& e,
                       std::uint64_t cause) {
  if (is_subsystem(to)) {
    causes_[at(from)][at(to)].push_back(cause);
    return;
  }
  // The bridge, the executor and the user: traced as they are sent.
  sink_(trace_point{to, &e, "", nullptr, next_++, cause});
}

} // namespace dice
