#pragma once
// The registry of task kinds a node can run: a name mapped to a function.
// Built-in kinds are `sleep`, `cpu` and `echo`; embedding programs add theirs.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "executor/execution.hpp"

namespace dice {

/// Runs one task. Called off the actor scheduler, on an executor slot thread;
/// long work should poll `cancel.canceled()` and return early.
using task_function =
  std::function<task_outcome(const std::string& payload, const cancel_token& cancel)>;

/// Runs one task seeing the whole request (its parents' ends, its limits).
using request_function =
  std::function<task_outcome(const execution_request& req, const cancel_token& cancel)>;
/// Runs an execution of a kind served outside this process (by a worker,
/// through the worker hub).
using outside_function = request_function;

class task_kinds {
public:
  /// With the built-in kinds registered.
  static task_kinds with_builtins();

  /// Adds or replaces a kind.
  void add(const std::string& kind, task_function fn);
  void add(const std::string& kind, request_function fn);
  const request_function* find(const std::string& kind) const;
  bool contains(const std::string& kind) const { return find(kind) != nullptr; }
  std::vector<std::string> names() const;

  /// Where executions of kinds without a function here go: the workers
  /// connected to the node (actors/workers). Unset: such a kind is unknown.
  void set_outside(outside_function fn) { outside_ = std::move(fn); }
  const outside_function* outside() const { return outside_ ? &outside_ : nullptr; }

private:
  std::map<std::string, request_function> kinds_;
  outside_function outside_;
};

// -- built-in kinds (payloads are text) --------------------------------------

/// `sleep`: payload milliseconds (0..3,600,000); cancellable; result "slept N".
task_outcome run_sleep(const std::string& payload, const cancel_token& cancel);
/// `cpu`: payload iterations (1..10^10) of a hash chain; the result is its
/// hex digest, the same on every machine, so duplicate runs agree.
task_outcome run_cpu(const std::string& payload, const cancel_token& cancel);
/// `echo`: the payload is the result.
task_outcome run_echo(const std::string& payload, const cancel_token& cancel);

/// Why a built-in kind (`sleep`, `cpu`) cannot read `payload`; empty if it
/// can, or if `kind` is not one of them. Checked at submit, so a payload
/// that would fail every attempt is refused with its reason at once.
std::string builtin_payload_problem(const std::string& kind,
                                    const std::string& payload);

} // namespace dice
