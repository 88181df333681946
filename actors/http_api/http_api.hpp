#pragma once
// The node's HTTP API (cpp-httplib): status and task operations as JSON.
// Handlers run on the server's threads and ask the actors, with a timeout,
// so a busy node answers 503 rather than hanging a client; guarded_server
// bounds connections and cuts slow clients; with a token set, every
// request but GET /health must carry it.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <caf/fwd.hpp>
#include <nlohmann/json_fwd.hpp>

#include "common/endpoint.hpp"
#include "node/node.hpp"

namespace httplib {
struct Response;
}

namespace dice {

class guarded_server;
class http_metrics;
struct live_runners;
struct node_metrics;

class http_api {
public:
  /// Binds at once; throws std::runtime_error if the port cannot be bound.
  http_api(caf::actor_system& sys, const node& n, endpoint where);
  ~http_api();

  void stop();
  /// How this node stops itself when POST /drain asked it to leave once
  /// drained (dice-node: as on SIGTERM). Unset: such a request is refused.
  void on_leave(std::function<void()> leave) { on_leave_ = std::move(leave); }
  std::uint64_t requests() const { return requests_; }
  std::uint64_t bad_requests() const { return bad_requests_; }
  std::uint64_t unauthorized() const { return unauthorized_; }

private:
  void routes();      // status: /health, /nodes, /stats
  void task_routes(); // the task API: /tasks...
  void metrics_routes(); // GET /metrics, and timing every request (metrics_routes.cpp)
  void ui_routes();      // the dashboard: /, /ui, /ui/FILE (ui_routes.cpp)
  /// The counters /stats and /metrics show, asked of the actors that own
  /// them (all but the membership view and the election); false, with
  /// `err` set, if one did not answer.
  bool gather_counters(node_metrics& m, std::string& err);
  void tester_routes(); // dice test: /blobs, /evaluation, /network (tester_routes.cpp)
  void lock_routes(); // cluster-wide locks: /locks (lock_routes.cpp)
  void event_routes(); // causal events: /events (event_routes.cpp)
  void bulk_routes(); // POST /tasks/cancel, DELETE /tasks (bulk_routes.cpp)
  void drain_routes(); // POST and DELETE /drain (drain_routes.cpp)
  void key_routes(); // the cluster keyring: /keys (key_routes.cpp)
  void worker_routes(); // workers outside the node: /workers (worker_routes.cpp)
  void workflow_routes(); // POST /workflows, GET /workflows/ID (workflow_routes.cpp)
  void schedule_routes(); // POST/GET /schedules, DELETE /schedules/NAME (schedule_routes.cpp)
  /// Enqueues `specs`, all or nothing, and answers with their ids after
  /// `extra`'s fields. `keyed`: ids a key gave; those the replica holds
  /// already are answered, not enqueued again. `wait_ms` (POST
  /// /tasks?wait_ms): once replicated, the answer waits up to that long
  /// for the tasks to end and lists them in `tasks` as they are then.
  void enqueue(std::vector<wire::TaskSpec> specs, bool keyed,
               httplib::Response& res, nlohmann::json extra,
               long long wait_ms = 0);
  /// After a receipt, in one question to the queue: whether `batch` was
  /// replicated within --http-submit-replicated-ms (nullopt: not known),
  /// and if `wait_ms` > 0 the tasks `ids` once each ended or `wait_ms` is
  /// over, as JSON; one the replica lacks is {"id", "error"}.
  struct submitted {
    std::optional<bool> replicated;
    std::optional<nlohmann::json> tasks;
  };
  submitted await_submitted(std::uint64_t batch, const std::vector<std::string>& ids,
                            long long wait_ms);
  /// Task `id` as the replica holds it, once it ended or after `wait_ms`
  /// (0: now); nullopt, `err` set, if the replica did not answer.
  std::optional<std::vector<task_row>> task_after(const std::string& id,
                                                  long long wait_ms,
                                                  std::string& err);
  /// What the live members run, with this node's --wait-for-runner, for
  /// the routes that take tasks (from the queue's stats board).
  live_runners runners();
  /// A long poll (a worker's take, GET /tasks/{id}?wait_ms) counted in
  /// long_polls_ while it lives. Each that waits holds a server thread, so
  /// at most half of them wait and the rest of the API is never starved;
  /// one that may not wait answers at once.
  class long_poll {
  public:
    explicit long_poll(http_api& api);
    ~long_poll() { --count_; }
    long_poll(const long_poll&) = delete;
    long_poll& operator=(const long_poll&) = delete;
    bool may_wait() const { return may_wait_; }

  private:
    std::atomic<std::size_t>& count_;
    bool may_wait_;
  };
  /// Calls on_leave_ once the node holds no claim or execution.
  void leave_when_drained();

  caf::actor_system& sys_;
  const node& node_;
  std::unique_ptr<guarded_server> server_;
  std::function<void()> on_leave_;
  std::atomic<bool> leaving_{false};
  std::atomic<bool> stopping_{false};
  std::thread leaver_;
  std::unique_ptr<http_metrics> metrics_;
  std::thread thread_;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> bad_requests_{0};
  std::atomic<std::uint64_t> unauthorized_{0};
  // Largest body of a project upload or blob (set by tester_routes()).
  std::atomic<std::uint64_t> upload_limit_{256 * 1024};
  std::atomic<std::uint64_t> submits_refused_{0}; // answered 429
  /// Long polls waiting now (workers' takes, GET /tasks/{id}?wait_ms).
  std::atomic<std::size_t> long_polls_{0};
};

} // namespace dice
