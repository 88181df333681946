#pragma once
// The bounded log of queue operations a replica keeps so that it can resend
// them to a peer that missed them. An op is compacted once every live member
// has seen it; when the log is full the oldest op goes, and a peer that still
// needed it gets a state transfer (snapshot) instead.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dice.pb.h"
#include "vocabulary/version_vector.hpp"

namespace dice {

class op_log {
public:
  explicit op_log(std::size_t limit);

  /// Keeps `op` (a queue message carrying OpId (origin, seq)).
  void add(const std::string& origin, std::uint64_t seq, wire::Message op);

  /// Drops every op naming one of `task_ids` (tasks forgotten: a peer that
  /// lacks them gets a snapshot instead).
  void drop_tasks(const std::set<std::string>& task_ids);

  /// Drops every op that `floor(origin)` says all live members have seen.
  void compact(const std::function<std::uint64_t(const std::string&)>& floor);

  /// The ops `have` lacks and `mine` has seen (past gaps too), oldest first
  /// per origin, at most `max_ops`. nullopt if some are no longer here
  /// (send a snapshot).
  std::optional<std::vector<wire::Message>>
  missing(const version_vector& have, const version_vector& mine,
          std::size_t max_ops) const;

  std::size_t size() const { return size_; }
  std::size_t limit() const { return limit_; }
  /// Ops dropped because the log was full.
  std::uint64_t evicted() const { return evicted_; }

private:
  std::size_t limit_;
  std::size_t size_ = 0;
  std::uint64_t evicted_ = 0;
  std::map<std::string, std::map<std::uint64_t, wire::Message>> ops_;
  // Arrival order, for eviction; entries already compacted are skipped.
  std::deque<std::pair<std::string, std::uint64_t>> arrival_;
};

} // namespace dice
