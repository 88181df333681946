#pragma once
// What this replica keeps of the version vectors live peers report in their
// heartbeats, in memory that grows with the number of peers, not with its
// square (a vector holds an entry per origin, so a copy of every peer's
// would cost every node O(N^2)). Per peer only:
// - its report of the origins the caller keeps (this node's, for acks;
//   superseded ones, to prune them),
// - for a few origins, the seqs it reported that this replica lacked then
//   (a witness: still lacking a heartbeat later, they were lost, not in
//   flight),
// - when it last reported whole.
// And for the whole cluster the floors: per origin the highest seq every
// peer has seen, as the last round of whole reports (one from every live
// peer) said, which bounds the op log.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/time.hpp"
#include "vocabulary/version_vector.hpp"

namespace dice {

class peer_versions {
public:
  /// A peer's heartbeat report. `kept`: the part of it the caller keeps
  /// (see above); `whole`: it lists every origin the peer has seen. A
  /// newer incarnation replaces what was kept (a restarted node starts
  /// empty); the same one joins (reports may reorder).
  void update(const std::string& peer, std::uint64_t incarnation,
              const version_vector& reported, const version_vector& kept,
              bool whole, const version_vector& self, millis now);
  /// What an Ack says the peer holds of this node's origin (only for a
  /// peer already reporting in this incarnation).
  void acked(const std::string& peer, std::uint64_t incarnation,
             const version_vector& seen);
  void forget(const std::string& peer);
  /// Drops `origin` from the peer's kept report (it no longer reports it).
  void forget_origin(const std::string& peer, const std::string& origin);
  /// Drops `origin` from every report (it was pruned here).
  void forget_origin(const std::string& origin);

  bool knows(const std::string& peer, std::uint64_t incarnation) const;
  /// The kept part of the peer's reports (nullptr: not reporting).
  const version_vector* kept(const std::string& peer) const;
  /// An op the peer's reports named (a heartbeat ago or more) that `self`
  /// still lacks: lost on its way here, not in flight.
  bool lacking(const std::string& peer, const version_vector& self) const;
  /// Every peer reported whole at or after `since`.
  bool all_reported_whole_since(millis since) const;
  bool empty() const { return peers_.empty(); }
  std::size_t size() const { return peers_.size(); }

  /// For every origin `self` has seen, the highest seq every peer has seen
  /// too, as the last complete round of whole reports said (0 until one
  /// completes with every peer that joined or restarted in it).
  std::map<std::string, std::uint64_t> floors(const version_vector& self) const;

  /// Calls `fn(const version_vector&)` with each peer's kept report.
  template <class F>
  void for_each(F&& fn) const {
    for (const auto& kv : peers_)
      fn(kv.second.kept);
  }

  /// Origins one witness holds at most; the rest shows in later reports.
  /// With 8, at 64 simulated nodes and 20% loss, origins whose ops were
  /// only in flight took every place, lost ones were found a report later,
  /// and unknown-task questions rose by 30%.
  static constexpr std::size_t witness_origins = 64;

  /// Seqs first..last of an origin that a peer reported.
  struct seqs {
    std::string origin;
    std::uint64_t first = 0;
    std::uint64_t last = 0;
  };

private:
  struct entry {
    std::uint64_t incarnation = 0;
    version_vector kept;
    std::vector<seqs> witness;
    bool reported_whole = false;
    millis whole_at = 0;
  };
  // Per origin the seqs of `reported` that `self` lacks, after the old
  // witness's still lacking, witness_origins at most.
  static std::vector<seqs> witness_of(const version_vector& reported,
                                      bool whole, const version_vector& self,
                                      const std::vector<seqs>& before);
  void take_into_round(const std::string& peer, const version_vector& reported,
                       const version_vector& self);

  std::map<std::string, entry> peers_;
  // The round of whole reports under way: per origin the lowest seq heard
  // (this replica's own seqs at its first report), and who reported in it.
  std::map<std::string, std::uint64_t> round_min_;
  std::set<std::string> round_reported_;
  // The last complete round's result.
  std::map<std::string, std::uint64_t> floors_;
};

} // namespace dice
