#pragma once
// The workers connected to this node: processes outside it (a Python
// worker, say) that serve task kinds through the HTTP API. The node claims
// as always; a slot that takes an execution of a served kind hands it here
// as a job, and a worker takes it, runs it and answers. A worker is live
// while it asks for work: one that has not asked within its lease is gone,
// and the jobs it held fail back to the queue, which runs them elsewhere.
// Plain logic: time is passed in, the hub actor drives it.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/time.hpp"

namespace dice {

/// One execution handed to a worker.
struct worker_job {
  std::uint64_t job = 0; // unique on this node
  std::string task_id;
  std::uint32_t attempt = 0;
  std::string kind;
  std::string payload;
  millis time_limit_ms = 0; // 0: none (the node stops it, then cancels)
};

/// How a job ended, for the slot that waits for it.
struct job_end {
  std::uint64_t job = 0;
  bool ok = false;
  bool final = false; // a failure no retry can fix
  std::string result_or_reason;
};

struct worker_board_config {
  millis lease_ms = 3000;         // silent longer than this: gone
  std::size_t max_workers = 64;   // joined at once
  std::size_t max_concurrency = 1024;
  /// Kinds this node runs itself: no worker may take their names.
  std::vector<std::string> own_kinds;
  /// Starts every worker id, so that a worker of the node's previous life
  /// is not taken for a new one (the node's incarnation, say).
  std::string id_prefix;
};

/// A connected worker, as GET /workers shows it.
struct worker_view {
  std::string id;
  std::string name;
  std::vector<std::string> kinds;
  std::size_t concurrency = 0;
  std::size_t holding = 0; // jobs taken, not answered
  std::uint64_t finished = 0;
  millis joined_ms = 0;
};

struct worker_counters {
  std::uint64_t joined = 0;
  std::uint64_t left = 0;          // said goodbye
  std::uint64_t lapsed = 0;        // their lease ran out
  std::uint64_t jobs_handed = 0;   // taken by a worker
  std::uint64_t jobs_finished = 0; // answered by a worker
  std::uint64_t jobs_lost = 0;     // failed back: worker gone or no worker
  std::uint64_t late_answers = 0;  // for a job canceled or failed back
};

/// A join's answer: the worker's id, or why it was refused.
struct worker_joined {
  std::string id;
  std::string refused;
};

/// A take's answer. `known` false: no such worker (its lease ran out, or
/// the node restarted): it must join again.
struct worker_take {
  bool known = true;
  std::vector<worker_job> jobs;
  std::vector<std::uint64_t> canceled;
};

/// What GET /workers and /stats show.
struct worker_report {
  std::vector<worker_view> workers;
  std::vector<std::string> kinds; // served now
  std::size_t queued = 0;         // jobs waiting for a worker
  worker_counters counters;
  millis lease_ms = 0;
};

/// A finish's answer.
enum class worker_finish { accepted, late, unknown_worker };

class worker_board {
public:
  explicit worker_board(worker_board_config cfg);

  /// A worker joins, serving `kinds`: its id, or nullopt with `why` set
  /// (a bad or own kind name, too many workers).
  std::optional<std::string> join(const std::vector<std::string>& kinds,
                                  std::size_t concurrency, const std::string& name,
                                  millis now, std::string& why);
  /// Whether `worker` is joined (and its lease not yet run out).
  bool knows(const std::string& worker) const;

  /// A slot's execution: queued for a worker serving its kind; false if
  /// none does (the slot fails it back at once).
  bool offer(worker_job j);
  /// The slot gave up the job (canceled, or its time limit): dropped if
  /// still queued; else its worker is told. The worker told, if any.
  std::optional<std::string> cancel(std::uint64_t job);

  /// Up to `max` queued jobs of the worker's kinds, now its own, and the
  /// jobs it holds that were canceled since it last asked (each told
  /// once). Renews its lease. Nothing if the worker is unknown.
  struct take_result {
    std::vector<worker_job> jobs;
    std::vector<std::uint64_t> canceled;
  };
  take_result take(const std::string& worker, std::size_t max, millis now);
  /// Whether take() would give the worker something now.
  bool has_work(const std::string& worker) const;
  /// A take is waiting (the lease does not run meanwhile) or over.
  void waiting(const std::string& worker, bool on, millis now);

  /// The worker's answer: the end to give the slot, or nullopt if the job
  /// is not (or no longer) this worker's. Renews its lease.
  std::optional<job_end> finish(const std::string& worker, job_end end, millis now);

  /// A worker says goodbye: its jobs, and queued jobs no one else serves,
  /// end as failures to retry elsewhere (returned).
  std::vector<job_end> leave(const std::string& worker);
  /// Workers whose lease ran out leave; their ends are returned.
  std::vector<job_end> expire(millis now);

  /// The kinds some joined worker serves, sorted.
  std::vector<std::string> served_kinds() const;
  std::vector<worker_view> workers() const;
  std::size_t size() const { return sessions_.size(); }
  const worker_counters& counters() const { return counters_; }
  std::size_t queued() const;

  /// Why `kind` cannot be a worker's kind name; empty if it can.
  std::string kind_problem(const std::string& kind) const;

private:
  struct session {
    worker_view view;
    millis last_seen = 0;
    bool waiting = false;
    std::set<std::uint64_t> held;
    std::vector<std::uint64_t> canceled; // held jobs to tell of a cancel
  };
  // Drops the worker; its held jobs and the queued ones nobody serves any
  // more end with `why`.
  std::vector<job_end> drop(const std::string& worker, const std::string& why);
  bool serves(const session& s, const std::string& kind) const;
  // Whether some joined worker serves `kind`.
  bool served(const std::string& kind) const;
  // "worker ID (NAME)", for the reasons its jobs end with.
  std::string label(const std::string& worker) const;

  worker_board_config cfg_;
  std::uint64_t next_worker_ = 1;
  std::map<std::string, session> sessions_;
  // Queued jobs by kind, in the order their slots handed them over.
  std::map<std::string, std::deque<worker_job>> queued_;
  // Every job held by a worker: which one.
  std::map<std::uint64_t, std::string> holder_;
  worker_counters counters_;
};

} // namespace dice
