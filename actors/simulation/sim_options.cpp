// The simulation's options and its report: the sums a run is judged by.
#include "simulation/sim_options.hpp"

#include <sstream>

#include "vocabulary/queue_messages.hpp"

namespace dice {

sim_options::sim_options() {
  faults.min_delay = 1;
  faults.max_delay = 10;
  // Lossy links: declare death only after many missed heartbeats, so that
  // loss alone rarely kills a live node.
  membership.suspect_after_ms = 1000;
  membership.dead_after_ms = 2400;
}

void sim_report::add(const queue_counters& c) {
  snapshots += c.snapshots_applied;
  canceled += c.executions_canceled;
  requeues += c.requeues;
  reclaims += c.reclaims;
  claims_lost += c.claims_lost;
  claims += c.claims;
  matched_claims += c.matched_claims;
}

std::string sim_report::summary() const {
  std::ostringstream out;
  out << "seed=" << seed << " tasks=" << tasks << " accepted=" << accepted
      << " removed=" << removed << " done=" << done << " expired=" << expired
      << " forgotten=" << forgotten << " held=" << held
      << " executions=" << executions << " duplicates=" << duplicates
      << " dup_completions=" << duplicate_completions
      << " converged=" << (converged ? "yes" : "no")
      << " makespan_ms=" << makespan_ms
      << " msgs/task=" << messages_per_task
      << " running_hb/task=" << heartbeats_per_task << " acks=" << acks
      << " bytes/task=" << bytes_per_task
      << " node_datagrams/task=" << node_datagrams_per_task
      << " busiest_node_datagrams/task=" << busiest_node_datagrams_per_task
      << " median_node_datagrams/task=" << median_node_datagrams_per_task
      << " node_sent/task=" << node_sent_per_task
      << " node_received/task=" << node_received_per_task
      << " crashes=" << crashes
      << " snapshots=" << snapshots << " canceled=" << canceled
      << " requeues=" << requeues << " reclaims=" << reclaims
      << " claims_lost=" << claims_lost << " claims=" << claims
      << " matched_claims=" << matched_claims << " bundles=" << bundles
      << " bundles_with_claims=" << bundles_with_claims << "\n  sent:";
  for (const auto& [kind, n] : by_kind)
    out << " " << kind << "=" << n;
  for (const auto& v : violations)
    out << "\n  VIOLATION: " << v;
  return out.str();
}

void sim_report::count_sent(const wire::Message& m, std::size_t copies) {
  auto kind = classify(m);
  if (kind == queue_message::running)
    ++running_heartbeats;
  else if (kind == queue_message::ack)
    ++acks;
  else
    ++queue_messages;
  if (kind == queue_message::sync_request || kind == queue_message::sync_reply)
    ++sync_messages;
  auto name = m.GetDescriptor()
                ->FindFieldByNumber(static_cast<int>(m.body_case()))
                ->name();
  if (m.has_info())
    name += " " + wire::TaskPhase_Name(m.info().phase());
  ++by_kind[name];
  copies_by_kind[name] += copies;
}

void sim_report::take_traffic(const sim_report& t) {
  queue_messages = t.queue_messages;
  running_heartbeats = t.running_heartbeats;
  acks = t.acks;
  sync_messages = t.sync_messages;
  membership_heartbeats = t.membership_heartbeats;
  queue_bytes = t.queue_bytes;
  queue_datagrams_by_node = t.queue_datagrams_by_node;
  sent_by_node = t.sent_by_node;
  received_by_node = t.received_by_node;
  bundles = t.bundles;
  bundles_with_claims = t.bundles_with_claims;
  by_kind = t.by_kind;
  copies_by_kind = t.copies_by_kind;
  largest_heartbeat_bytes = t.largest_heartbeat_bytes;
  heartbeat_bytes = t.heartbeat_bytes;
}

void sim_report::count_bundle(const wire::Message& bundle) {
  ++bundles;
  int claims = 0;
  for (const auto& p : bundle.bundle().parts())
    claims += p.has_dequeue() ? 1 : 0;
  if (claims >= 2)
    ++bundles_with_claims;
}

} // namespace dice
