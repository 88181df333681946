#pragma once
// The claim path as a trace of the production actors: every input a queue
// subsystem takes (and every event the bridge, the executor or the user is
// sent), with the input whose handling emitted it. An actor does not know
// which input of its sender caused a message, but CAF delivers the
// messages of one sender to one receiver in the order sent, so each pair
// of stations keeps a FIFO of causes: the sender pushes, the receiver pops.
// Tests only: the trace is kept by one object per node, unsynchronized, so
// it needs a scheduler that runs every actor on one thread (CAF's test
// coordinator). A node without it (dice-node) pays one null check per
// input.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>

#include "vocabulary/queue_events.hpp"
#include "vocabulary/station.hpp"

namespace dice {

/// What the sink sees; `event` and `message` point into the handler's
/// input and live only while the sink runs.
struct trace_point {
  station at;                       // who takes it
  const ev::event* event = nullptr; // none: an input from outside the queue
  /// An input from outside: "datagram", "submit", "tick", "peer dead", ...
  const char* input = "";
  const wire::Message* message = nullptr; // a received datagram's
  std::uint64_t id = 0;
  std::uint64_t cause = 0; // the point whose handling emitted it; 0: none
};

class queue_trace {
public:
  using sink = std::function<void(const trace_point&)>;
  explicit queue_trace(sink s) : sink_(std::move(s)) {}

  /// `at` takes an input from outside the queue; its id.
  std::uint64_t outside(station at, const char* input,
                        const wire::Message* message = nullptr);
  /// `at` takes `e` from `from` (nullopt or a station outside the queue:
  /// an input from outside); its id.
  std::uint64_t taking(station at, std::optional<station> from,
                       const ev::event& e);
  /// `from`, handling its point `cause`, sent `e` to `to`.
  void sent(station from, station to, const ev::event& e, std::uint64_t cause);

private:
  static constexpr std::size_t n = station_count;
  sink sink_;
  std::uint64_t next_ = 1;
  std::array<std::array<std::deque<std::uint64_t>, n>, n> causes_{};
};

} // namespace dice
