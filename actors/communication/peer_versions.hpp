#pragma once
// The version vectors live peers last reported in their heartbeats: who is
// behind (send ops), what every live member has seen (compact the op log),
// and whether some other replica holds an op (acknowledge a submit).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "vocabulary/version_vector.hpp"

namespace dice {

class peer_versions {
public:
  /// A peer's report. A newer incarnation replaces the old vector (a
  /// restarted node starts empty); the same one joins (reports may reorder).
  void update(const std::string& peer, std::uint64_t incarnation,
              const version_vector& seen);
  void forget(const std::string& peer) { peers_.erase(peer); }
  /// Drops `origin` from the peer's report (it no longer reports it).
  void forget_origin(const std::string& peer, const std::string& origin) {
    if (auto i = peers_.find(peer); i != peers_.end())
      i->second.seen.forget(origin);
  }
  /// Drops `origin` from every report (it was pruned here).
  void forget_origin(const std::string& origin) {
    for (auto& kv : peers_)
      kv.second.seen.forget(origin);
  }

  const version_vector* find(const std::string& peer) const;
  /// The peer's vector only if it was reported by this incarnation.
  const version_vector* find(const std::string& peer,
                             std::uint64_t incarnation) const;
  bool empty() const { return peers_.empty(); }
  std::size_t size() const { return peers_.size(); }

  /// Highest seq of `origin` seen by every peer and by `self`.
  std::uint64_t floor(const std::string& origin,
                      const version_vector& self) const;

  /// floor() for every origin `self` has seen, in one pass per peer.
  std::map<std::string, std::uint64_t>
  floors(const version_vector& self) const;

  /// True if some peer has seen op (origin, seq).
  bool covered(const std::string& origin, std::uint64_t seq) const;

  /// Calls `fn(const version_vector&)` with each peer's last report.
  template <class F>
  void for_each(F&& fn) const {
    for (const auto& kv : peers_)
      fn(kv.second.seen);
  }

private:
  struct entry {
    std::uint64_t incarnation = 0;
    version_vector seen;
  };
  std::map<std::string, entry> peers_;
};

} // namespace dice
