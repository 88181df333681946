#include "unknown_resolver/unknown_resolver_machine.hpp"

#include <algorithm>

#include "vocabulary/station.hpp"

#include <utility>

#include "vocabulary/queue_messages.hpp"

namespace dice {

unknown_resolver_machine::unknown_resolver_machine(resolver_config cfg,
                                                   millis stale_wait,
                                                   std::uint64_t seed)
  : resolver_(std::move(cfg)), stale_wait_(stale_wait), rng_(seed) {
}

void unknown_resolver_machine::on(const ev::unknown_seen& e, millis now,
                                  ev::events& out) {
  if (resolver_.unknown(e.task_id, now))
    out.push_back(ev::broadcast{make_do_you_know(e.task_id)});
}

void unknown_resolver_machine::on(const ev::spec_learned& e, millis,
                                  ev::events&) {
  resolver_.resolved(e.task_id);
}

void unknown_resolver_machine::on(const ev::stale_seen& e, millis now,
                                  ev::events&) {
  resolver_.stale(e.task_id, now, rng_, stale_wait_);
}

void unknown_resolver_machine::on(const ev::known_question& e, millis now,
                                  ev::events&) {
  resolver_.asked(e.task_id, now, rng_);
}

void unknown_resolver_machine::on(const ev::answer_seen& e, millis,
                                  ev::events&) {
  resolver_.answer_seen(e.task_id);
}

void unknown_resolver_machine::tick(millis now, ev::events& out) {
  for (const auto& task_id : resolver_.answers_due(now))
    out.push_back(ev::answer_due{task_id});
  for (const auto& task_id : resolver_.asks_due(now))
    out.push_back(ev::broadcast{make_do_you_know(task_id)});
}

unknown_resolver_machine make_unknown_resolver_machine(const machine_config& c) {
  // Stale answers within the shorter claim window: half of it.
  return unknown_resolver_machine(
    c.queue.resolver,
    std::min(c.queue.claim_window_ms, c.queue.matched_claim_window_ms) / 2,
    subsystem_seed(c.seed, station::unknown_resolver));
}

} // namespace dice
