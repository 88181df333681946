#pragma once
// Embedding DiCE: run a node's actor set (bridge, membership, executor,
// replicated queue) inside your own caf::actor_system, with your own task
// kinds, and submit tasks and follow them from your code.
//
//   caf::actor_system_config cfg;
//   dice::embed::prepare(cfg);
//   caf::actor_system sys{cfg};
//   dice::embed::node n{sys, opts};
//   n.add_kind("upper", fn);          // kinds before start()
//   n.start();
//   auto id = n.submit({"upper", "hi"});
//   auto ev = n.await(id, std::chrono::seconds(10));
//   auto eval = n.submit_evaluation("path/to/project"); // dice test
//   auto report = n.evaluation_report(eval);            // JSON text
//   node_actor a = n.actor(); // the same from your own actors (actors.hpp)
//
// Every node of a cluster must register the kinds it may be asked to run.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "dice/actors.hpp"
#include "dice/evaluation.hpp"
#include "dice/task.hpp"

namespace dice::embed {

/// Call once on your config before constructing the actor system.
void prepare(caf::actor_system_config& cfg);

struct options {
  std::string id;                          // unique in the cluster
  std::string listen = "127.0.0.1:7400";   // UDP HOST:PORT (port 0: any)
  std::string advertise;                   // HOST:PORT peers use; default listen
  std::vector<std::string> peers;          // seed peers, HOST:PORT
  std::string cluster_id = "dice";
  std::string cluster_key;                 // >= 16 bytes; empty: loopback only
  std::string http;                        // HTTP task API HOST:PORT; empty: off
  std::string http_token;                  // bearer token; required off loopback
  std::string http_tls_cert_file;          // PEM certificate: the API is HTTPS only
  std::string http_tls_key_file;           // PEM key of that certificate
  std::size_t slots = 1;                   // tasks executed at once
  std::size_t prefetch = 1;                // tasks claimed beyond the slots
  bool prefetch_auto = true;               // from prefetch up to 4 while executions take a few ms (dice-node --prefetch auto)
  std::uint32_t max_attempts = 3;          // failed executions before FAILED
  std::chrono::milliseconds retry_backoff{0}; // before a 2nd attempt, doubling
  std::vector<std::string> shell_allow;    // enables the `shell` kind
  bool tester = false;                     // runs dice test's `test` tasks
  std::string tester_work_dir;             // their workspaces; empty: under $TMPDIR
};

class node {
public:
  /// Checks the options; throws std::invalid_argument with a one-line reason.
  node(caf::actor_system& sys, options opts);
  ~node(); // stops the node
  node(const node&) = delete;
  node& operator=(const node&) = delete;

  // -- before start() -------------------------------------------------------

  /// Adds a kind run by a function (replaces a kind of that name).
  void add_kind(const std::string& name, kind_function fn);
  /// The same for a function that receives the task's parents' results.
  void add_kind(const std::string& name, kind_function_with_parents fn);
  /// Adds a kind run by an actor: it gets a request (std::string kind,
  /// std::string payload) and answers a std::string result, or an error
  /// (the task fails with the error's text). No answer within `timeout`
  /// fails the execution. A cancel does not reach the actor: the slot waits
  /// for its answer (or the timeout), then reports the execution canceled.
  void add_actor_kind(const std::string& name, caf::actor worker,
                      std::chrono::milliseconds timeout = std::chrono::minutes(1));

  /// Spawns the actor set, binds the sockets (and the HTTP API if asked).
  /// Throws std::runtime_error with a one-line reason (e.g. port in use).
  void start();

  // -- after start() -----------------------------------------------------------

  /// The node as an actor, for your own actors: every operation below,
  /// asked with request(...).then(...), and task events, ends and causal
  /// messages as messages (see dice/actors.hpp). The blocking calls below
  /// ask it too.
  node_actor actor() const;

  /// Enqueues a task; returns its id once another replica holds it (or no
  /// other node is alive). Throws std::invalid_argument for an unknown kind
  /// (neither this node nor a live member runs it: a kind a worker serves
  /// at another node is taken, docs/workers.md) or an oversize payload, std::runtime_error if the node is busy or does
  /// not answer in `timeout`.
  std::string submit(const task& t,
                     std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Enqueues a workflow, all or nothing: `json` is POST /workflows's body
  /// (docs/workflows.md: steps, each after earlier ones, fanned out over
  /// "payloads"); returns the workflow's id once another replica holds its
  /// tasks. Their ids derive from it and the steps' names: use `await` on
  /// a task of the workflow, or GET /workflows/ID. Throws as submit does.
  std::string submit_workflow(const std::string& json,
                              std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Adds a periodic schedule: `json` is POST /schedules's body
  /// (docs/workflows.md); returns its record's id once another replica
  /// holds it. The same schedule added again returns that id. Throws as
  /// submit does.
  std::string add_schedule(const std::string& json,
                           std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Calls `fn` for every task state change this node learns, from a CAF
  /// thread: keep it short and do not block. May be called before start().
  void on_event(std::function<void(const task_event&)> fn);
  /// The task's end (done, failed, canceled or removed), or nullopt if it
  /// did not end within `timeout`.
  std::optional<task_event> await(const std::string& id,
                                  std::chrono::milliseconds timeout);
  /// Publishes a causal event to every node (delivered here at once).
  /// Throws std::invalid_argument for a bad topic (letters, digits, - _ . : /)
  /// or data over 16 KiB, std::runtime_error if the node does not answer.
  void publish(const std::string& topic, const std::string& data);
  /// Calls `fn` for every event of `topic` ("" for all) this node delivers,
  /// in causal order, from a CAF thread: keep it short and do not block.
  /// May be called before start().
  void on_message(const std::string& topic, std::function<void(const message&)> fn);
  /// removeByID / cancel; false if the task is unknown or already ended.
  bool remove(const std::string& id);
  bool cancel(const std::string& id);

  /// Submits an evaluation of the project at `path` (a directory, or a
  /// .tar.gz, .tar or .zip archive); returns its id once enqueued. Any node
  /// of the cluster with `tester` set may run its modules. Throws
  /// std::invalid_argument with the reason for bad options or a project
  /// that is none (no tests, a broken archive), std::runtime_error if the
  /// node is busy.
  std::string submit_evaluation(const std::string& path,
                                const evaluation_options& opts = {});
  /// The evaluation's report as JSON text, as GET /evaluation/{id} gives
  /// it ("state" becomes "done"; "totals" counts passed, failed, skipped,
  /// errors, flaky; "modules" says who ran what); nullopt if this node
  /// knows no such evaluation. The same on every node.
  std::optional<std::string> evaluation_report(const std::string& id);

  /// The kinds this node runs.
  std::vector<std::string> kinds() const;
  const std::string& id() const;
  /// The UDP address peers reach this node at (the bound port if 0 was asked).
  std::string address() const;

  /// Stops the actors and sockets; idempotent.
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The id of task `i` (0-based) of step `step` of workflow `workflow_id`,
/// whose "payloads" made `count` tasks (1: a step of one task).
std::string step_task_id(const std::string& workflow_id, const std::string& step,
                         std::size_t i = 0, std::size_t count = 1);

} // namespace dice::embed
