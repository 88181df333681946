#pragma once
// The tasks a replica has forgotten, as the numbers their enqueuers gave
// them when they created them (TaskSpec.created: an origin, node#
// incarnation, and a count from 1 per origin). A task past its retention
// leaves the replica, but its number stays here, so that no late or
// replayed message, no stale peer and no old journal can bring it back:
// anything naming a forgotten number is refused.
//
// Forgetting is the top of a task's order: the set only grows, and two
// sets merge by union (commutative, associative, idempotent), like the
// task states. Numbers are forgotten roughly in the order they were given,
// so per origin the set is a few ranges ([1, n] and some islands), not one
// entry per task ever run.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

class forgotten_set {
public:
  /// True if task `n` of `origin` is forgotten.
  bool contains(const std::string& origin, std::uint64_t n) const;
  bool contains(const wire::OpId& created) const {
    return contains(created.origin(), created.seq());
  }

  /// Adds [first, last]; true if any of it is new.
  bool add(const std::string& origin, std::uint64_t first, std::uint64_t last);
  bool add(const wire::OpId& created) {
    return add(created.origin(), created.seq(), created.seq());
  }
  /// Adds every range of `ranges`; true if any is new.
  bool merge(const google::protobuf::RepeatedPtrField<wire::ForgottenRange>& ranges);

  /// Every range, origin by origin.
  std::vector<wire::ForgottenRange> ranges() const;
  /// Numbers forgotten (the sum of the ranges' lengths).
  std::uint64_t count() const { return count_; }
  /// Ranges held: what the set costs in memory and on the wire.
  std::size_t range_count() const;

  bool operator==(const forgotten_set& o) const { return by_origin_ == o.by_origin_; }

private:
  // Per origin: first -> last of disjoint, non-adjacent ranges.
  std::map<std::string, std::map<std::uint64_t, std::uint64_t>> by_origin_;
  std::uint64_t count_ = 0;
};

/// The range of the one number `created`.
wire::ForgottenRange range_of(const wire::OpId& created);

} // namespace dice
