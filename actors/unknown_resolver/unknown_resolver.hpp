#pragma once
// Unknown-task resolution (seed 000, algorithm 2). A node that hears of a
// task it has no spec for asks DO_YOU_KNOW_THIS_TASK first of a witness, a
// node whose message named the task (it holds the task), which answers at
// once and to the asker alone: a broadcast question and its answer cost
// every node a datagram, so with them a node's traffic per task would grow
// with the cluster. Unanswered, it asks the witnesses again in turn
// (resolver_config::witness_tries); only then does it broadcast the
// question; then every node that knows the task waits a random back-off and
// answers (TAKE_MY_TASK, or ALREADY_FINISHED_TASK for an ended task) unless
// it heard someone else answer first: usually exactly one node answers.
// Those answers are broadcast so that the other responders hear them and
// stay silent.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "common/time.hpp"

#include "vocabulary/resolver_config.hpp"

namespace dice {

class unknown_resolver {
public:
  explicit unknown_resolver(resolver_config cfg = {});

  // -- asker --------------------------------------------------------------

  /// A question to send: to `peer` alone, or broadcast if it is empty.
  struct ask {
    std::string task_id;
    std::string peer;
  };

  /// A message of `witness` (empty if none) named `task_id`, which we have
  /// no spec for. The question to send now, if any; with an ask delay it
  /// comes from asks_due() once the delay passed (and only if still
  /// unknown).
  std::optional<ask> unknown(const std::string& task_id,
                             const std::string& witness, millis now);

  /// We now know the task: stop asking.
  void resolved(const std::string& task_id);

  /// The live cluster has `n` nodes, this one included: with
  /// scale_witness_tries, questions beyond 64 go to witnesses alone longer.
  void cluster_size(std::size_t n);
  /// The direct tries a cluster of `n` adds to witness_tries: one per
  /// doubling beyond 64 nodes (65-128: 1, 129-256: 2, ...).
  static std::uint32_t extra_witness_tries(std::size_t n);

  /// Questions due: first questions whose ask delay passed, and questions
  /// whose answer window passed unanswered: to a witness while tries are
  /// below witness_tries, then broadcast; at most resolve_tries in all
  /// (both counts raised by what cluster_size adds).
  std::vector<ask> asks_due(millis now);

  // -- responder ----------------------------------------------------------

  /// Someone asked about a task we know: schedule our answer after a random
  /// back-off (once; a repeated question keeps the first schedule).
  void asked(const std::string& task_id, millis now, std::mt19937_64& rng);

  /// Someone answered about `task_id`: we stay silent (and, if we were
  /// asking, the answer resolves it).
  void answer_seen(const std::string& task_id);

  /// Answers whose back-off ran out without anyone else answering.
  std::vector<std::string> answers_due(millis now);

  bool asking(const std::string& task_id) const {
    return asking_.count(task_id) > 0;
  }
  bool answering(const std::string& task_id) const {
    return answering_.count(task_id) > 0;
  }
  /// Nothing to ask or answer.
  bool idle() const { return asking_.empty() && answering_.empty(); }

  // -- counters -------------------------------------------------------------
  std::uint64_t answers_suppressed() const { return suppressed_; }

private:
  struct question {
    millis next_at = 0;
    std::uint32_t tries = 0;
    /// Nodes whose messages named the task, in the order heard (a few).
    std::vector<std::string> witnesses;
  };
  static constexpr std::size_t max_witnesses = 3;
  /// The next try of `q`, counted.
  ask next_try(const std::string& task_id, question& q, millis now);
  resolver_config cfg_;
  std::uint32_t extra_tries_ = 0; // see cluster_size
  std::map<std::string, question> asking_;
  std::map<std::string, millis> answering_;
  std::uint64_t suppressed_ = 0;
};

} // namespace dice
