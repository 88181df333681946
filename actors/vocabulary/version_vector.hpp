#pragma once
// Which queue operations a replica has seen: per origin (a node incarnation)
// the highest contiguous sequence number, plus any seen beyond a gap. This is
// the vector clock of seed 001 applied to queue operations; replicas exchange
// it in heartbeats to find out who is behind.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dice.pb.h"

namespace dice {

/// Bytes of ops seen past a gap that a version vector reports on the wire
/// (see version_vector::to_wire): a snapshot's first chunk must still hold
/// a task beside it, and a heartbeat its current origins.
constexpr std::size_t wire_beyond_bytes = 192;
/// Ops past a gap that reading a version vector takes in at most (the
/// oldest first): runs make a long stretch cheap to send, not to hold.
constexpr std::size_t read_beyond_limit = 8192;

class version_vector {
public:
  /// (origin, highest contiguous seq), sorted by origin. A flat vector, not a
  /// map: heartbeats carry one entry per origin and every node reads every
  /// peer's, so building, joining and comparing must be cheap.
  using contiguous_entries = std::vector<std::pair<std::string, std::uint64_t>>;

  /// Records op (origin, seq); false if it was already seen.
  bool observe(const std::string& origin, std::uint64_t seq);

  /// True if op (origin, seq) was seen (contiguously or beyond a gap).
  bool seen(const std::string& origin, std::uint64_t seq) const;

  /// Highest contiguous seq seen from `origin` (0: none).
  std::uint64_t get(const std::string& origin) const;

  /// What this vector has seen of `origin` alone.
  version_vector only(const std::string& origin) const;

  /// Adds everything `other` has seen (state transfer brought it all).
  void raise_to(const version_vector& other);

  /// True if `other` has seen some op this vector has not.
  bool behind(const version_vector& other) const;

  /// Pointwise max with `other` (a newer report of the same peer).
  void join(const version_vector& other);

  /// Drops every trace of `origin` (a superseded incarnation, pruned).
  void forget(const std::string& origin);
  /// What this vector has seen of the origins `keep(origin)` is true for.
  template <class Keep>
  version_vector only_if(Keep keep) const {
    version_vector v;
    for (const auto& e : contiguous_)
      if (keep(e.first))
        v.contiguous_.push_back(e);
    for (const auto& g : beyond_gap_)
      if (keep(g.first))
        v.beyond_gap_.insert(v.beyond_gap_.end(), g);
    return v;
  }
  /// True if some op of `origin` was seen past a gap (not all arrived).
  bool has_gaps(const std::string& origin) const {
    return beyond_gap_.count(origin) > 0;
  }

  const contiguous_entries& entries() const {
    return contiguous_;
  }
  /// Ops seen past a gap, per origin.
  const std::map<std::string, std::set<std::uint64_t>>& beyond_gaps() const {
    return beyond_gap_;
  }

  /// Every origin's contiguous seq, and the newest runs of ops seen past a
  /// gap in `beyond_bytes` at most, shared among the origins with gaps.
  /// Leaving some out under-reports what was seen, which costs a resend,
  /// never a loss; all of them could outgrow a frame while many gaps are
  /// open.
  void to_wire(google::protobuf::RepeatedPtrField<wire::VersionEntry>* out,
               std::size_t beyond_bytes = wire_beyond_bytes) const;
  static version_vector
  from_wire(const google::protobuf::RepeatedPtrField<wire::VersionEntry>& in);

  bool operator==(const version_vector& other) const {
    return contiguous_ == other.contiguous_
           && beyond_gap_ == other.beyond_gap_;
  }

private:
  void absorb_gaps(const std::string& origin);
  // raise_to's halves: the contiguous prefixes, then the ops past gaps.
  void raise_all(const version_vector& other);
  void absorb_beyond(const version_vector& other);
  // The entry of `origin`, inserted (at 0) if missing.
  std::uint64_t& slot(const std::string& origin);

  contiguous_entries contiguous_;
  std::map<std::string, std::set<std::uint64_t>> beyond_gap_;
};

} // namespace dice
