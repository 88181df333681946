// GET /metrics: the counters behind /stats, and the API's own request
// counts and latencies, in the Prometheus text format for a scraper.
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/status_json.hpp"
#include "metrics/http_metrics.hpp"
#include "metrics/node_metrics.hpp"
#include "tester/tester_node.hpp"

namespace dice {

void http_api::metrics_routes() {
  auto& s = *server_;
  // Every answered request (also 401, 404 and 413) is counted and timed.
  s.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics_->answered(req.method, req.path, res.status);
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    node_metrics m;
    auto ok = gather_counters(m, err);
    auto nodes = query<std::vector<node_view>>(sys_, node_.members(), err,
                                               nodes_atom_v);
    auto elect = query<election_view>(sys_, node_.elect(), err, election_atom_v);
    auto locks = query<locks_view>(sys_, node_.locks(), err, locks_atom_v);
    if (!ok || !nodes || !elect || !locks) {
      res.status = 503;
      res.set_content("node busy: " + err + "\n", "text/plain");
      return;
    }
    m.nodes = std::move(*nodes);
    m.election = std::move(*elect);
    m.locks = std::move(*locks);
    m.version = DICE_VERSION;
    if (const auto& t = node_.tester()) {
      const auto& c = t->runner->counters();
      m.tests = {c.modules.load(), c.tests.load(), c.passed.load(),
                 c.failed.load()};
    }
    auto families = metric_families(m);
    for (auto& f : metrics_->collect())
      families.push_back(std::move(f));
    res.status = 200;
    res.set_content(exposition_text(families), exposition_content_type);
  });
}

bool http_api::gather_counters(node_metrics& m, std::string& err) {
  auto wire = query<bridge_counters>(sys_, node_.bridge(), err, stats_atom_v);
  auto queue = query<queue_counters>(sys_, node_.queue(), err, stats_atom_v);
  auto exec = query<executor_stats>(sys_, node_.exec(), err, stats_atom_v);
  auto members = query<membership_counters>(sys_, node_.members(), err,
                                            stats_atom_v);
  auto counts = query<task_counts>(sys_, node_.queue(), err, tasks_atom_v,
                                   stats_atom_v);
  auto events = query<causal_stats>(sys_, node_.events(), err, stats_atom_v);
  if (!wire || !queue || !exec || !members || !counts || !events)
    return false;
  m.events = *events;
  m.wire = *wire;
  m.queue = *queue;
  m.exec = *exec;
  m.membership = *members;
  m.tasks = *counts;
  auto conns = server_->counters();
  m.http = {bad_requests_.load(),   unauthorized_.load(), submits_refused_.load(),
            conns.open,             conns.rejected,       conns.evicted,
            conns.idle_closed,      conns.timed_out,      conns.failed};
  return true;
}

} // namespace dice
