#include "metrics/node_metrics.hpp"

#include <sstream>

#include <prometheus/text_serializer.h>

#include "known_tasks/state_names.hpp"

namespace dice {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using labels = std::vector<ClientMetric::Label>;

// Appends families and their samples; a family is opened once, then
// samples are added to the last one opened.
class families {
public:
  families& family(std::string name, std::string help, MetricType type) {
    out_.push_back(MetricFamily{std::move(name), std::move(help), type, {}});
    return *this;
  }
  families& sample(double value, labels l = {}) {
    ClientMetric m;
    m.label = std::move(l);
    if (out_.back().type == MetricType::Counter)
      m.counter.value = value;
    else
      m.gauge.value = value;
    out_.back().metric.push_back(std::move(m));
    return *this;
  }
  /// One family with one unlabelled sample.
  families& one(std::string name, std::string help, MetricType type,
                double value) {
    return family(std::move(name), std::move(help), type).sample(value);
  }
  std::vector<MetricFamily> take() { return std::move(out_); }

private:
  std::vector<MetricFamily> out_;
};

constexpr auto counter = MetricType::Counter;
constexpr auto gauge = MetricType::Gauge;

void wire_families(families& f, const bridge_counters& w) {
  f.family("dice_datagrams_total", "Datagrams sent and received", counter)
    .sample(w.datagrams_sent, {{"direction", "sent"}})
    .sample(w.datagrams_received, {{"direction", "received"}});
  f.family("dice_datagram_bytes_total", "Bytes of datagrams sent and received",
           counter)
    .sample(w.bytes_sent, {{"direction", "sent"}})
    .sample(w.bytes_received, {{"direction", "received"}});
  f.family("dice_bundles_total",
           "Datagrams that carried several messages (bundles)", counter)
    .sample(w.bundles_sent, {{"direction", "sent"}})
    .sample(w.bundles_received, {{"direction", "received"}});
  f.one("dice_relayed_datagrams_total",
        "Queue datagrams passed on for their origin, as a super-peer", counter,
        static_cast<double>(w.relayed));
  // Every family is shown, at 0 until its first message, so a dashboard's
  // query finds the series before the traffic does.
  auto by_kind = w.by_kind;
  for (auto kind : {"membership", "queue", "sync", "election", "tester",
                    "mutex", "causal"})
    by_kind.try_emplace(kind);
  auto& messages = f.family("dice_messages_total",
                            "Messages sealed and accepted, by family (a "
                            "bundle's parts one by one; a broadcast once)",
                            counter);
  for (const auto& [kind, k] : by_kind)
    messages.sample(k.sent, {{"direction", "sent"}, {"kind", kind}})
      .sample(k.received, {{"direction", "received"}, {"kind", kind}});
  auto& bytes = f.family("dice_message_bytes_total",
                         "Bytes of the messages of dice_messages_total, "
                         "without envelope",
                         counter);
  for (const auto& [kind, k] : by_kind)
    bytes.sample(k.bytes_sent, {{"direction", "sent"}, {"kind", kind}})
      .sample(k.bytes_received, {{"direction", "received"}, {"kind", kind}});
  f.one("dice_datagrams_accepted_total",
        "Received datagrams that passed every check", counter, w.accepted);
  f.one("dice_datagrams_over_bundle_bytes_total",
        "Datagrams sent larger than --bundle-bytes (one message that alone "
        "exceeds it)", counter, w.sent_over_bundle_bytes);
  f.family("dice_incarnation_probes_total",
           "Restarted memory-only peers' incarnation probes, answered or "
           "not (over the rate limit)", counter)
    .sample(w.probes_answered, {{"answer", "sent"}})
    .sample(w.probes_unanswered, {{"answer", "refused"}});
  f.one("dice_send_errors_total", "Datagrams that could not be sent", counter,
        w.send_errors);
  f.one("dice_unaddressed_total",
        "Messages for a node id with no known address, not sent", counter,
        w.unaddressed);
  f.family("dice_datagrams_dropped_total",
           "Received datagrams dropped, by reason", counter)
    .sample(w.dropped_malformed, {{"reason", "malformed"}})
    .sample(w.dropped_unauthenticated, {{"reason", "unauthenticated"}})
    .sample(w.dropped_replayed, {{"reason", "replayed"}})
    .sample(w.dropped_stale_incarnation, {{"reason", "stale_incarnation"}})
    .sample(w.dropped_oversize, {{"reason", "oversize"}})
    .sample(w.dropped_version, {{"reason", "version"}})
    .sample(w.dropped_cluster, {{"reason", "cluster"}})
    .sample(w.dropped_self, {{"reason", "self"}});
  // Per cluster key: a rotation is done on this node once "sent" grows
  // only for the new key and "received" only for it across the cluster.
  auto& keys = f.family("dice_datagrams_by_key_total",
                        "Datagrams by cluster key id: sealed with it (a "
                        "broadcast once), accepted under it, and dropped for "
                        "naming a key this node does not hold (unknown)",
                        counter);
  for (const auto& [id, k] : w.by_key)
    keys.sample(k.sent, {{"direction", "sent"}, {"key", id}})
      .sample(k.received, {{"direction", "received"}, {"key", id}});
  for (const auto& [id, n] : w.unknown_key_ids)
    keys.sample(n, {{"direction", "unknown"}, {"key", id}});
}

void task_families(families& f, const task_counts& t, const executor_stats& e,
                   const queue_counters& q) {
  auto& tasks = f.family("dice_tasks",
                         "Tasks in this node's replica, by state (queue depth "
                         "is state=\"ready\")",
                         gauge);
  for (const auto& s : shown_states)
    tasks.sample(count_in(t, s), {{"state", s.name}});
  f.one("dice_executor_slots", "Executions this node runs at once", gauge,
        e.slots);
  f.one("dice_executor_busy_slots", "Slots running an execution now", gauge,
        e.busy);
  f.family("dice_executions_total",
           "Executions on this node: started, and how they ended", counter)
    .sample(e.started, {{"outcome", "started"}})
    .sample(e.completed, {{"outcome", "done"}})
    .sample(e.failed, {{"outcome", "failed"}})
    .sample(e.canceled, {{"outcome", "canceled"}});
  f.family("dice_claims_total", "Claims this node made, and their outcomes",
           counter)
    .sample(q.claims, {{"outcome", "made"}})
    .sample(q.matched_claims, {{"outcome", "matched"}})
    .sample(q.claims_lost, {{"outcome", "lost"}})
    .sample(q.reclaims, {{"outcome", "reclaimed"}});
  f.one("dice_matched_claim_window_seconds",
        "How long a claim the common matching gave this node waits for "
        "rivals, as learnt from rival claims heard late",
        gauge, static_cast<double>(q.matched_window_ms) / 1000.0);
  f.one("dice_duplicate_executions_total",
        "Executions stopped because another node's claim won: the task ran "
        "twice for a while",
        counter, q.executions_canceled);
  f.one("dice_requeues_total",
        "Tasks re-queued: after a silent executor or a failed attempt",
        counter, q.requeues);
  f.one("dice_retries_total",
        "Failed attempts this node re-queued for another (per-task retries)",
        counter, q.retries);
  f.one("dice_forgotten_total",
        "Ended tasks that left this replica after their retention",
        counter, q.tasks_forgotten);
  f.one("dice_forgotten_refused_total",
        "Messages refused because they named a forgotten task",
        counter, q.forgotten_refused);
  f.one("dice_expired_total",
        "Tasks this node ended EXPIRED: not started before their expiry",
        counter, q.expired);
}

void queue_families(families& f, const queue_counters& q) {
  struct row {
    const char* name;
    const char* help;
    std::uint64_t value;
  };
  const row rows[] = {
    {"ops_sent", "Queue operations broadcast", q.ops_sent},
    {"ops_received", "Queue operations received", q.ops_received},
    {"duplicate_ops", "Queue operations received more than once",
     q.duplicate_ops},
    {"defenses", "RUNNING sent at once to a losing claimer", q.defenses},
    {"running_heartbeats", "RUNNING heartbeats sent", q.running_heartbeats},
    {"start_marks", "Executions this node told the others had begun",
     q.start_marks},
    {"sync_requests", "Anti-entropy requests sent", q.sync_requests},
    {"sync_replies", "Anti-entropy replies sent", q.sync_replies},
    {"snapshots_sent", "State transfers sent", q.snapshots_sent},
    {"snapshots_applied", "State transfers merged", q.snapshots_applied},
    {"rejected", "Malformed or unusable queue messages", q.rejected},
    {"recoveries", "Dead members whose tasks this node re-queued",
     q.recoveries},
    {"recoveries_heard", "Recovery announcements received",
     q.recoveries_heard},
    {"adopted", "Tasks whose enqueuer of record this node became", q.adopted},
    {"parent_cancels", "Dependent tasks this node canceled because a parent did not finish",
     q.parent_cancels},
    {"schedule_ticks", "Schedule ticks this node enqueued", q.schedule_ticks},
    {"stable_points_sent", "Stable points announced", q.stable_points_sent},
    {"stable_points_applied", "Stable points applied",
     q.stable_points_applied},
    {"acks_sent", "Acks of received ENQUEUEs", q.acks_sent},
    {"journal_records_loaded", "Journal records merged at start",
     q.journal_records_loaded},
    {"journal_bad_tails", "Torn or corrupt journal tails cut",
     q.journal_bad_tails},
    {"journal_records_written", "Journal records appended",
     q.journal_records_written},
    {"journal_bytes_written", "Journal bytes appended",
     q.journal_bytes_written},
    {"journal_syncs", "Journal fsyncs", q.journal_syncs},
    {"journal_compactions", "Journal rewrites", q.journal_compactions},
    {"journal_write_errors", "Journal writes refused",
     q.journal_write_errors},
  };
  for (auto& r : rows)
    f.one(std::string("dice_queue_") + r.name + "_total", r.help, counter,
          r.value);
}

void cluster_families(families& f, const std::vector<node_view>& nodes,
                      const membership_counters& m, const election_view& e) {
  std::uint64_t by_state[3] = {0, 0, 0};
  for (auto& n : nodes)
    ++by_state[static_cast<int>(n.state)];
  f.family("dice_members", "Nodes in this node's membership view, by state",
           gauge)
    .sample(by_state[0], {{"state", "alive"}})
    .sample(by_state[1], {{"state", "suspect"}})
    .sample(by_state[2], {{"state", "dead"}});
  f.family("dice_membership_events_total",
           "Membership anomalies: stale messages, clashing ids, pauses",
           counter)
    .sample(m.stale_messages, {{"event", "stale_message"}})
    .sample(m.conflicting_ids, {{"event", "conflicting_id"}})
    .sample(m.ids_refused, {{"event", "id_refused"}})
    .sample(m.pauses, {{"event", "pause"}});
  auto& states = f.family("dice_election_state",
                          "1 for the election state this node is in", gauge);
  for (auto s : {"down", "election", "reorganizing", "normal"})
    states.sample(e.state == s ? 1 : 0,
                  {{"algorithm", e.algorithm}, {"state", s}});
  auto& coord = f.family("dice_coordinator",
                         "1 labelled with the coordinator this node follows",
                         gauge);
  if (e.coordinator && !e.coordinator->empty())
    coord.sample(1, {{"coordinator", *e.coordinator}});
  f.one("dice_elections_started_total", "Elections this node started",
        counter, e.elections_started);
  f.one("dice_election_mismatched_peers",
        "Peers heard running another election algorithm than this node",
        gauge, e.mismatched.size());
  f.family("dice_election_messages_dropped_total",
           "Election messages ignored, by reason", counter)
    .sample(e.other_algorithm, {{"reason", "other_algorithm"}})
    .sample(e.ignored, {{"reason", "unexpected_kind"}})
    .sample(e.malformed, {{"reason", "malformed"}});
}

void http_families(families& f, const http_counters& h) {
  f.one("dice_http_bad_requests_total", "Requests answered 4xx for bad input",
        counter, h.bad_requests);
  f.one("dice_http_unauthorized_total", "Requests without the right token",
        counter, h.unauthorized);
  f.one("dice_http_submits_refused_total", "Submits answered 429", counter,
        h.submits_refused);
  f.one("dice_http_connections_open", "Connections open now", gauge,
        h.connections_open);
  f.family("dice_http_connections_closed_total",
           "Connections closed by the server, by reason", counter)
    .sample(h.connections_rejected, {{"reason", "rejected"}})
    .sample(h.connections_evicted, {{"reason", "evicted"}})
    .sample(h.connections_idle_closed, {{"reason", "idle"}})
    .sample(h.requests_timed_out, {{"reason", "request_timeout"}})
    .sample(h.connections_failed, {{"reason", "failed"}});
}

void lock_event_test_families(families& f, const locks_view& l,
                              const causal_stats& e, const test_totals& t) {
  std::uint64_t held = 0, waiting = 0;
  for (const auto& row : l.local) {
    held += row.held ? 1 : 0;
    waiting += row.waiters.size();
  }
  f.one("dice_locks_held", "Cluster-wide locks an owner on this node holds",
        gauge, held);
  f.one("dice_lock_waiters", "Owners on this node waiting for a lock", gauge,
        waiting);
  f.family("dice_locks_total", "Locks granted to this node, and lost by it",
           counter)
    .sample(l.granted, {{"outcome", "granted"}})
    .sample(l.lost, {{"outcome", "lost"}});
  f.family("dice_events_total",
           "Causal events: published on this node, delivered here, "
           "duplicates dropped, resent to peers, dropped for a full hold-back "
           "queue", counter)
    .sample(e.published, {{"outcome", "published"}})
    .sample(e.delivered, {{"outcome", "delivered"}})
    .sample(e.duplicates, {{"outcome", "duplicate"}})
    .sample(e.resent, {{"outcome", "resent"}})
    .sample(e.overflowed, {{"outcome", "overflowed"}});
  f.one("dice_events_held", "Causal events held back until an event before "
        "them is delivered", gauge, e.held_back);
  f.one("dice_test_modules_total", "dice test modules this node ran", counter,
        t.modules);
  f.family("dice_tests_total", "Tests this node ran, by result", counter)
    .sample(t.passed, {{"result", "passed"}})
    .sample(t.failed, {{"result", "failed"}});
}

} // namespace

std::vector<MetricFamily> metric_families(const node_metrics& m) {
  families f;
  f.family("dice_build_info", "1, labelled with the version of this node",
           gauge)
    .sample(1, {{"version", m.version}});
  lock_event_test_families(f, m.locks, m.events, m.tests);
  task_families(f, m.tasks, m.exec, m.queue);
  wire_families(f, m.wire);
  cluster_families(f, m.nodes, m.membership, m.election);
  http_families(f, m.http);
  queue_families(f, m.queue);
  return f.take();
}

std::string exposition_text(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, families);
  return out.str();
}

} // namespace dice
