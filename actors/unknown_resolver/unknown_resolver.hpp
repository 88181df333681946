#pragma once
// Unknown-task resolution (seed 000, algorithm 2). A node that hears of a
// task it has no spec for broadcasts DO_YOU_KNOW_THIS_TASK. Every node that
// knows the task waits a random back-off and then answers (TAKE_MY_TASK, or
// ALREADY_FINISHED_TASK for an ended task) unless it heard someone else
// answer first: usually exactly one node answers. Answers are broadcast so
// that the other responders hear them and stay silent.
#include <cstddef>
#include <cstdint>
#include <map>
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

  /// A message named `task_id`, which we have no spec for. True if we should
  /// broadcast DO_YOU_KNOW_THIS_TASK now; with an ask delay the question
  /// comes from asks_due() once the delay passed (and only if still unknown).
  bool unknown(const std::string& task_id, millis now);

  /// We now know the task: stop asking.
  void resolved(const std::string& task_id);

  /// Questions due: first questions whose ask delay passed, and questions
  /// whose answer window passed unanswered (at most resolve_tries in all).
  std::vector<std::string> asks_due(millis now);

  // -- responder ----------------------------------------------------------

  /// Someone asked about a task we know: schedule our answer after a random
  /// back-off (once; a repeated question keeps the first schedule).
  void asked(const std::string& task_id, millis now, std::mt19937_64& rng);

  /// Someone showed it has not heard that a task ended: the same answer,
  /// after a back-off in [0, max_wait] so that it arrives within the
  /// stale node's claim window (half the shorter of the two windows).
  void stale(const std::string& task_id, millis now, std::mt19937_64& rng,
             millis max_wait);

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
  std::uint64_t stale_seen() const { return stale_; }

private:
  struct question {
    millis next_at = 0;
    std::uint32_t tries = 0;
  };
  resolver_config cfg_;
  std::map<std::string, question> asking_;
  std::map<std::string, millis> answering_;
  std::uint64_t suppressed_ = 0;
  std::uint64_t stale_ = 0;
};

} // namespace dice
