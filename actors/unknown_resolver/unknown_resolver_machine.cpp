#include "unknown_resolver/unknown_resolver_machine.hpp"

#include "vocabulary/station.hpp"

#include <utility>

#include "vocabulary/queue_messages.hpp"

namespace dice {

namespace {

void send(const unknown_resolver::ask& a, ev::events& out) {
  if (a.peer.empty())
    out.push_back(ev::broadcast{make_do_you_know(a.task_id)});
  else
    out.push_back(ev::send_to{a.peer, make_do_you_know(a.task_id, true)});
}

} // namespace

unknown_resolver_machine::unknown_resolver_machine(resolver_config cfg,
                                                   std::uint64_t seed)
  : resolver_(std::move(cfg)), rng_(seed) {
}

void unknown_resolver_machine::on(const ev::unknown_seen& e, millis now,
                                  ev::events& out) {
  if (auto a = resolver_.unknown(e.task_id, e.witness, now))
    send(*a, out);
}

void unknown_resolver_machine::on(const ev::spec_learned& e, millis,
                                  ev::events&) {
  resolver_.resolved(e.task_id);
}

void unknown_resolver_machine::on(const ev::known_question& e, millis now,
                                  ev::events&) {
  resolver_.asked(e.task_id, now, rng_);
}

void unknown_resolver_machine::on(const ev::answer_seen& e, millis,
                                  ev::events&) {
  resolver_.answer_seen(e.task_id);
}

void unknown_resolver_machine::on(const ev::live_nodes& e, millis,
                                  ev::events&) {
  resolver_.cluster_size(e.count);
}

void unknown_resolver_machine::tick(millis now, ev::events& out) {
  for (const auto& task_id : resolver_.answers_due(now))
    out.push_back(ev::answer_due{task_id});
  for (const auto& a : resolver_.asks_due(now))
    send(a, out);
}

unknown_resolver_machine make_unknown_resolver_machine(const machine_config& c) {
  return unknown_resolver_machine(c.queue.resolver,
                                  subsystem_seed(c.seed, station::unknown_resolver));
}

} // namespace dice
