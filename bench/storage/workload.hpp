#pragma once
// The work both stores are given: tasks as one node's queue writes them
// (the spec with a task's first record, then READY, RUNNING, DONE), several
// in flight at once, and forgetting by the enqueuer's number, one range
// per task as known_tasks hands it to its sink.
#include <cstdint>
#include <string>

#include "dice.pb.h"
#include "known_tasks/forgotten_set.hpp"

namespace bench {

constexpr const char* origin = "node-a#1764170000";

/// Task n's id, as a node names its submits (NODE-INCARNATION-COUNT).
std::string task_id(std::uint64_t n);
dice::wire::TaskSpec task_spec(std::uint64_t n);
/// Task n's state at `phase` (READY, RUNNING or DONE).
dice::wire::TaskState task_state(std::uint64_t n, dice::wire::TaskPhase phase);
/// The range known_tasks hands its sink when task n is forgotten.
dice::wire::ForgottenRange task_range(std::uint64_t n);

struct op {
  enum kind_t { record, forget } kind;
  std::uint64_t task;
  dice::wire::TaskPhase phase; // of a record
};

/// The i-th op of a pipeline of `tasks` tasks: step s enqueues task s,
/// claims task s - lag, ends task s - 2 lag and (with forget_lag > 0)
/// forgets task s - forget_lag. Deterministic, so a reader can recompute
/// what any prefix wrote.
class op_stream {
public:
  op_stream(std::uint64_t tasks, std::uint64_t lag, std::uint64_t forget_lag);
  bool next(op& out);
  std::uint64_t emitted() const { return emitted_; }

private:
  bool fill(op& out, int slot);
  std::uint64_t tasks_, lag_, forget_lag_;
  std::uint64_t step_ = 0;
  int slot_ = 0;
  std::uint64_t emitted_ = 0;
};

} // namespace bench
