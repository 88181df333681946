#include "http_api/http_api.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include <httplib.h>

#include "common/time.hpp"
#include "executor/task_kinds.hpp"
#include "common/ask.hpp"
#include "http_api/bearer_token.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/live_runners.hpp"
#include "http_api/request_body.hpp"
#include "http_api/status_json.hpp"
#include "http_api/task_json.hpp"
#include "http_api/task_list.hpp"
#include "metrics/http_metrics.hpp"
#include "metrics/node_metrics.hpp"
#include "http_api/tester_stats.hpp"

namespace dice {

namespace {

void reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // A path, payload or result need not be UTF-8 (a shell task may print
  // any byte): such bytes become U+FFFD instead of an exception, which
  // aborted the node from a 404 handler.
  res.set_content(body.dump(-1, ' ', false,
                            nlohmann::json::error_handler_t::replace),
                  "application/json");
}

void busy(httplib::Response& res, const std::string& error) {
  reply(res, 503, error_json("node busy: " + error));
}

} // namespace

http_api::http_api(caf::actor_system& sys, const node& n, endpoint where)
  : sys_(sys), node_(n),
    server_(std::make_unique<guarded_server>(n.config().api)),
    metrics_(std::make_unique<http_metrics>()) {
  routes();
  task_routes();
  metrics_routes();
  ui_routes();
  tester_routes();
  lock_routes();
  event_routes();
  bulk_routes();
  drain_routes();
  key_routes();
  workflow_routes();
  schedule_routes();
  worker_routes();
  // Headers and body leave in separate writes: with Nagle's algorithm the
  // body waited for the client's delayed ACK, 40 ms on Linux, so every
  // answer took 40 ms or more on loopback.
  server_->set_tcp_nodelay(true);
  if (!server_->bind(where.host, where.port))
    throw std::runtime_error("cannot bind HTTP " + where.to_string()
                             + ": address in use or not available");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

http_api::~http_api() {
  stop();
}

void http_api::stop() {
  stopping_ = true;
  if (leaver_.joinable() && leaver_.get_id() != std::this_thread::get_id())
    leaver_.join();
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

void http_api::routes() {
  auto& s = *server_;
  // Larger bodies are refused with 413 before they are read.
  s.set_payload_max_length(256 * 1024);
  // Before any body is read: a request without the token costs no more.
  s.set_pre_routing_handler([this](const httplib::Request& req,
                                   httplib::Response& res) {
    ++requests_;
    metrics_->start_request();
    // Only project uploads and blobs may exceed 256 KiB (tester_routes()).
    // Refused here, by the announced length: past this point httplib would
    // read and discard the whole body (until its read timeout) before it
    // answered 413. The connection closes: the unread body follows.
    bool upload = req.path == "/evaluation" || req.path.rfind("/blobs/", 0) == 0;
    auto limit = upload ? upload_limit_.load() : std::uint64_t{256 * 1024};
    if (req.get_header_value<std::uint64_t>("Content-Length") > limit) {
      ++bad_requests_;
      res.set_header("Connection", "close");
      reply(res, 413, error_json("request body too large (at most "
                                 + std::to_string(limit) + " bytes)"));
      return httplib::Server::HandlerResponse::Handled;
    }
    const auto& token = node_.config().api.token;
    if (token.empty() || open_without_token(req.method, req.path)
        || bearer_matches(req.get_header_value("Authorization"), token))
      return httplib::Server::HandlerResponse::Unhandled;
    ++unauthorized_;
    res.set_header("WWW-Authenticate", "Bearer");
    reply(res, 401, error_json(req.has_header("Authorization")
                                 ? "wrong bearer token"
                                 : "missing bearer token: send Authorization: "
                                   "Bearer TOKEN"));
    return httplib::Server::HandlerResponse::Handled;
  });
  s.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, health_json(node_.config().id));
  });
  s.Get("/nodes", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto v = query<std::vector<node_view>>(sys_, node_.members(), err, nodes_atom_v);
    if (!v)
      return busy(res, err);
    reply(res, 200, nodes_json(node_.config().id, *v));
  });
  s.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    node_metrics m;
    if (!gather_counters(m, err))
      return busy(res, err);
    auto* wire = &m.wire;
    auto* queue = &m.queue;
    auto* exec = &m.exec;
    auto* members = &m.membership;
    auto* counts = &m.tasks;
    nlohmann::json body;
    body["id"] = node_.config().id;
    body["wire"] = bridge_json(*wire);
    body["tasks"] = task_counts_json(*counts);
    body["executions"] = {{"slots", exec->slots},     {"busy", exec->busy},
                          {"started", exec->started}, {"completed", exec->completed},
                          {"failed", exec->failed},   {"canceled", exec->canceled}};
    body["queue"] = queue_json(*queue);
    body["tests"] = tester_stats_json(*node_.tester());
    // Drained by its operator, and the claims and executions it still holds.
    body["draining"] = {{"on", queue->draining > 0}, {"held", queue->seats_held}};
    const auto& e = m.events;
    body["events"] = {{"published", e.published},   {"delivered", e.delivered},
                      {"held_back", e.held_back},   {"duplicates", e.duplicates},
                      {"resent", e.resent},         {"overflowed", e.overflowed}};
    // What this node's claims are ranked by, as configured at start
    // (--battery auto on a machine with a battery: the level read then; the
    // ranking reads it again every --battery-refresh-ms).
    const auto& q = node_.config().queue;
    body["ranking"] = {
      {"battery", q.battery},
      {"battery_refreshed", static_cast<bool>(q.battery_source)},
      {"device_class", q.device_class},
      // The claims held beyond the slots now are queue.prefetch.
      {"prefetch", q.prefetch_auto ? nlohmann::json("auto")
                                   : nlohmann::json(q.prefetch)},
      {"unknown_strategy", q.resolver.strategy == resolve_strategy::never_want
                             ? "never_want"
                             : "always_want"},
      // "auto" grows with the cluster (resolver_config::scale_witness_tries).
      {"unknown_direct_tries", q.resolver.scale_witness_tries
                                 ? nlohmann::json("auto")
                                 : nlohmann::json(q.resolver.witness_tries)}};
    body["membership"] = {{"stale_messages", members->stale_messages},
                          {"conflicting_ids", members->conflicting_ids},
                          {"ids_refused", members->ids_refused},
                          {"pauses", members->pauses}};
    const auto& h = m.http;
    body["http"] = {{"requests", requests_.load()},
                    {"bad_requests", h.bad_requests},
                    {"unauthorized", h.unauthorized},
                    {"submits_refused", h.submits_refused},
                    {"connections_open", h.connections_open},
                    {"connections_rejected", h.connections_rejected},
                    {"connections_evicted", h.connections_evicted},
                    {"connections_idle_closed", h.connections_idle_closed},
                    {"requests_timed_out", h.requests_timed_out},
                    {"connections_failed", h.connections_failed}};
    reply(res, 200, body);
  });
  s.Get("/election", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto v = query<election_view>(sys_, node_.elect(), err, election_atom_v);
    if (!v)
      return busy(res, err);
    reply(res, 200, election_json(*v));
  });
  // Anything unrouted (unknown path or method) gets a JSON error, not HTML.
  s.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    // httplib calls this for every status >= 400, also for the 4xx/5xx our
    // routes answered with their own message: keep those.
    if (!res.body.empty())
      return;
    ++bad_requests_;
    if (res.status == 413)
      return reply(res, 413, error_json("request body too large"));
    auto status = res.status == 405 ? 405 : 404;
    reply(res, status, error_json("no route for " + req.method + " " + req.path));
  });
}

void http_api::enqueue(std::vector<wire::TaskSpec> specs, bool keyed,
                       httplib::Response& res, nlohmann::json extra,
                       long long wait_ms) {
  std::string err;
  const auto& api = node_.config().api;
  // `extra` leads the answer (a workflow's id and steps), then the ids.
  auto with = [](nlohmann::json a, const nlohmann::json& b) {
    for (auto& [k, v] : b.items())
      a[k] = v;
    return a;
  };
  // A key submitted before is the task it named: answered with its id,
  // whatever became of the first submit (201, 202, 503, a cut
  // connection). Only the keys this replica does not hold yet are sent.
  std::vector<std::string> all_ids, existing;
  if (keyed) {
    task_query q;
    for (const auto& spec : specs)
      q.ids.push_back(spec.id());
    all_ids = q.ids;
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err,
                                             tasks_atom_v, q);
    if (!rows)
      return busy(res, err);
    std::set<std::string> held;
    for (const auto& r : *rows)
      if (r.has_spec)
        held.insert(r.spec.id());
    existing.assign(held.begin(), held.end());
    specs.erase(std::remove_if(specs.begin(), specs.end(),
                               [&](const wire::TaskSpec& s) {
                                 return held.count(s.id()) > 0;
                               }),
                specs.end());
    if (specs.empty()) {
      auto body = with(std::move(extra), {{"ids", all_ids}, {"existing", existing},
                                          {"replicated", true}});
      // The keys' tasks, whoever submitted them first (no batch to await).
      if (auto tasks = await_submitted(0, all_ids, wait_ms).tasks)
        body["tasks"] = std::move(*tasks);
      return reply(res, 200, body);
    }
  }
  // All or nothing: the queue takes every task or none. It refuses a
  // submit it reaches after accept_by, and we wait for its answer
  // longer than that, so a 503 from here means nothing was enqueued.
  auto accept = std::chrono::milliseconds(api.submit_accept_ms);
  auto receipt = ask_within<submit_receipt>(
    sys_, node_.queue(), accept + http_ask_timeout, err, submit_atom_v,
    std::move(specs), caf::make_timestamp() + accept);
  if (!receipt)
    return reply(res, 503, {{"error", "node busy, no task enqueued: " + err},
                            {"ids", nlohmann::json::array()}});
  if (!receipt->refused.empty()) {
    ++submits_refused_;
    res.set_header("Retry-After", "1");
    return reply(res, 429, {{"error", "no task enqueued: " + receipt->refused},
                            {"ids", nlohmann::json::array()}});
  }
  // Enqueued: the ids are the client's whatever replication does next.
  metrics_->submitted(receipt->ids.size());
  const auto& ids = all_ids.empty() ? receipt->ids : all_ids;
  auto after = await_submitted(receipt->batch, ids, wait_ms);
  auto replicated = after.replicated;
  auto body = with(std::move(extra),
                   {{"ids", ids}, {"replicated", replicated.value_or(false)}});
  if (!existing.empty())
    body["existing"] = existing;
  if (after.tasks)
    body["tasks"] = std::move(*after.tasks);
  if (replicated && *replicated)
    return reply(res, 201, body);
  if (replicated) // known_tasks refused some, which fresh ids never are
    body["error"] = "some tasks were refused by the replica";
  reply(res, 202, body);
}

http_api::long_poll::long_poll(http_api& api)
  : count_(api.long_polls_),
    may_wait_(count_.fetch_add(1)
              < std::max<std::size_t>(1, api.node_.config().api.threads / 2)) {
}

http_api::submitted http_api::await_submitted(std::uint64_t batch,
                                              const std::vector<std::string>& ids,
                                              long long wait_ms) {
  // Replication and the ends in one question: each question from a server
  // thread to the queue costs a thread wake-up both ways. The wait holds
  // this thread, so it waits only if few long polls do (else: now).
  auto within = millis{node_.config().api.submit_replicated_ms};
  std::optional<long_poll> poll;
  if (wait_ms > 0 && !poll.emplace(*this).may_wait())
    wait_ms = 0;
  auto named = poll ? ids : std::vector<std::string>{};
  std::string err;
  auto progress = ask_within<submit_progress>(
    sys_, node_.queue(),
    std::chrono::milliseconds(within + wait_ms) + http_ask_timeout, err,
    submit_atom_v, batch, within, std::move(named), millis{wait_ms});
  if (!progress)
    return {};
  submitted out{progress->replicated, std::nullopt};
  if (!poll || !progress->replicated.value_or(false))
    return out;
  out.tasks = nlohmann::json::array();
  for (const auto& r : progress->rows) {
    if (!r.has_spec) {
      out.tasks->push_back({{"id", r.spec.id()}, {"error", "no such task"}});
      continue;
    }
    auto j = task_json(r.spec, r.state, true);
    j["owner"] = r.owner;
    out.tasks->push_back(std::move(j));
  }
  return out;
}

std::optional<std::vector<task_row>>
http_api::task_after(const std::string& id, long long wait_ms, std::string& err) {
  // A long poll waits in the queue's facade, which answers by itself once
  // the task ends or the wait is over. It holds a server thread, so it
  // waits only if few long polls do (else it answers now).
  if (std::optional<long_poll> poll; wait_ms > 0 && poll.emplace(*this).may_wait())
    return ask_within<std::vector<task_row>>(
      sys_, node_.queue(), std::chrono::milliseconds(wait_ms) + http_ask_timeout,
      err, tasks_atom_v, task_query::of(id), millis{wait_ms});
  return query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                      task_query::of(id));
}

live_runners http_api::runners() {
  // From the board: every submit checks it, and a question to the queue
  // would cost it two thread wake-ups.
  auto nodes = node_.queue_board().runners();
  auto heard = nodes.size();
  // Asked only before a refusal. A view that does not come counts as a
  // member unheard: better a task that waits than one wrongly refused.
  auto unheard = [this, heard]() -> std::size_t {
    std::string err;
    auto view = query<std::vector<node_view>>(sys_, node_.members(), err, nodes_atom_v);
    if (!view)
      return 1;
    auto live = static_cast<std::size_t>(std::count_if(
      view->begin(), view->end(), [](const node_view& n) { return n.state != peer_state::dead; }));
    return live > heard ? live - heard : 0;
  };
  return live_runners{std::move(nodes), node_.config().api.wait_for_runner, unheard};
}

void http_api::task_routes() {
  auto& s = *server_;
  s.Post("/tasks", [this](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& read) {
    auto runners = this->runners();
    std::string err;
    auto body = read_body(req, read);
    auto wait = parse_task_wait(req.params, err);
    if (!wait) {
      ++bad_requests_;
      return reply(res, 400, error_json(err));
    }
    auto now = wall_clock_ms();
    // Any kind parses: runners.problem below refuses one nobody runs.
    auto sub = parse_submit(body, {}, {}, err, now);
    if (!sub) {
      ++bad_requests_;
      return reply(res, 400, error_json(err));
    }
    if (auto why = submit_payload_problem(sub->kind, sub->payload); !why.empty()) {
      ++bad_requests_;
      return reply(res, 400, error_json(why));
    }
    auto specs = specs_of(*sub, now);
    if (auto why = spec_size_problem(specs.front()); !why.empty()) {
      ++bad_requests_;
      return reply(res, 400, error_json(why));
    }
    if (auto why = runners.problem(specs.front()); !why.empty()) {
      ++bad_requests_;
      return reply(res, 400, error_json(why));
    }
    if (*wait > 0 && specs.size() > max_waited_submit) {
      ++bad_requests_;
      return reply(res, 400, error_json(
        "wait_ms waits for at most " + std::to_string(max_waited_submit)
        + " tasks; this submit has " + std::to_string(specs.size())));
    }
    enqueue(std::move(specs), !sub->policy.key.empty(), res, {}, *wait);
  });
  s.Get("/tasks", [this](const httplib::Request& req, httplib::Response& res) {
    std::string err;
    auto list = parse_task_list(req.params, err);
    if (!list) {
      ++bad_requests_;
      return reply(res, 400, error_json(err));
    }
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err,
                                             tasks_atom_v, list->query);
    if (!rows)
      return busy(res, err);
    reply(res, 200, task_list_json(*rows, *list));
  });
  s.Get(R"(/tasks/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    std::string err;
    auto id = req.matches[1].str();
    auto wait = parse_task_wait(req.params, err);
    if (!wait) {
      ++bad_requests_;
      return reply(res, 400, error_json(err));
    }
    auto rows = task_after(id, *wait, err);
    if (!rows)
      return busy(res, err);
    if (rows->empty() || !rows->front().has_spec)
      return reply(res, 404, error_json("no task " + id));
    const auto& r = rows->front();
    auto j = task_json(r.spec, r.state, true);
    j["owner"] = r.owner;
    reply(res, 200, j);
  });
  auto change = [this](auto atom, const char* verb) {
    return [this, atom, verb](const httplib::Request& req, httplib::Response& res) {
      auto id = req.matches[1].str();
      std::string err;
      auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                             task_query::of(id));
      if (!rows)
        return busy(res, err);
      if (rows->empty() || !rows->front().has_spec)
        return reply(res, 404, error_json("no task " + id));
      auto ok = ask<bool>(sys_, node_.queue(), err, atom, id);
      if (!ok)
        return busy(res, err);
      if (!*ok)
        return reply(res, 409, error_json(
                                 "task " + id + " cannot be " + verb + ": it is "
                                 + state_name(rows->front().state)));
      reply(res, 200, {{"id", id}, {verb, true}});
    };
  };
  s.Delete(R"(/tasks/([^/]+))", change(remove_atom_v, "removed"));
  s.Post(R"(/tasks/([^/]+)/cancel)",
         [cancel = change(cancel_atom_v, "canceled")](
           const httplib::Request& req, httplib::Response& res,
           const httplib::ContentReader& read) {
           read_body(req, read); // none expected; read so the connection stays usable
           cancel(req, res);
         });
}

} // namespace dice
