#pragma once
// The unknown_resolver subsystem: asks about tasks this replica has no spec
// for (the witness first, then everyone), and answers others' broadcast
// questions about tasks it holds, after a random back-off so that usually
// one node answers (seed 000, algorithm 2). Direct questions and stale
// senders are answered at once by known_tasks, which holds the task.
#include <optional>
#include <random>
#include <string>

#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_events.hpp"
#include "unknown_resolver/unknown_resolver.hpp"

namespace dice {

class unknown_resolver_machine {
public:
  unknown_resolver_machine(resolver_config cfg, std::uint64_t seed);

  void on(const ev::unknown_seen& e, millis now, ev::events& out);
  void on(const ev::spec_learned& e, millis now, ev::events& out);
  void on(const ev::known_question& e, millis now, ev::events& out);
  void on(const ev::answer_seen& e, millis now, ev::events& out);
  /// The live cluster's size sets how long questions go to witnesses alone.
  void on(const ev::live_nodes& e, millis now, ev::events& out);
  /// Questions and answers whose time has come.
  void tick(millis now, ev::events& out);
  /// While questions or answers wait, every tick.
  std::optional<millis> next_due() const {
    if (resolver_.idle())
      return std::nullopt;
    return millis{0};
  }

  const unknown_resolver& resolver() const { return resolver_; }

private:
  unknown_resolver resolver_;
  std::mt19937_64 rng_;
};

/// The machine its actor runs (queue/), built the same in unit tests.
unknown_resolver_machine make_unknown_resolver_machine(const machine_config& c);

} // namespace dice
