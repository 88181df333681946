#pragma once
// GET /metrics: a node's counters in the Prometheus text exposition format.
// The values are gathered by the HTTP API from the actors that own them
// (the same ones /stats shows) and turned into metric families here, with
// no CAF and no server, so the output is tested directly.
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

#include "broadcast_bridge/bridge_counters.hpp"
#include "causal/causal_machine.hpp"
#include "election/election_node.hpp"
#include "executor/executor_stats.hpp"
#include "known_tasks/task_query.hpp"
#include "membership/membership_state.hpp"
#include "membership/node_view.hpp"
#include "mutex/mutex_node.hpp"
#include "vocabulary/queue_counters.hpp"

namespace dice {

/// The HTTP API's own counters (connections from guarded_server).
struct http_counters {
  std::uint64_t bad_requests = 0;
  std::uint64_t unauthorized = 0;
  std::uint64_t submits_refused = 0;
  std::uint64_t connections_open = 0;
  std::uint64_t connections_rejected = 0;
  std::uint64_t connections_evicted = 0;
  std::uint64_t connections_idle_closed = 0;
  std::uint64_t requests_timed_out = 0;
  std::uint64_t connections_failed = 0; // socket or TLS errors
};

/// dice test's work on this node (its runner's counters).
struct test_totals {
  std::uint64_t modules = 0, run = 0, passed = 0, failed = 0;
};

/// Everything one scrape shows, as plain values.
struct node_metrics {
  std::string version; // the program's, for dice_build_info
  bridge_counters wire;
  queue_counters queue;
  executor_stats exec;
  membership_counters membership;
  task_counts tasks;
  std::vector<node_view> nodes; // self included
  election_view election;
  http_counters http;
  locks_view locks;
  test_totals tests;
  causal_stats events;
};

/// The metric families of one scrape (names start with dice_).
std::vector<prometheus::MetricFamily> metric_families(const node_metrics& m);

/// `families` in the text exposition format (version 0.0.4).
std::string exposition_text(const std::vector<prometheus::MetricFamily>& families);

/// The Content-Type of exposition_text's output.
constexpr const char* exposition_content_type = "text/plain; version=0.0.4; charset=utf-8";

} // namespace dice
