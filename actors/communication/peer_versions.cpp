#include "communication/peer_versions.hpp"

#include <algorithm>

namespace dice {

void peer_versions::update(const std::string& peer, std::uint64_t incarnation,
                           const version_vector& seen) {
  auto [i, added] = peers_.try_emplace(peer);
  auto& e = i->second;
  if (added || incarnation > e.incarnation) {
    e = entry{incarnation, seen};
  } else if (incarnation == e.incarnation) {
    e.seen.join(seen);
  }
}

const version_vector* peer_versions::find(const std::string& peer) const {
  auto i = peers_.find(peer);
  return i == peers_.end() ? nullptr : &i->second.seen;
}

std::uint64_t peer_versions::floor(const std::string& origin,
                                   const version_vector& self) const {
  auto lowest = self.get(origin);
  for (const auto& [id, e] : peers_)
    lowest = std::min(lowest, e.seen.get(origin));
  return lowest;
}

std::map<std::string, std::uint64_t>
peer_versions::floors(const version_vector& self) const {
  std::map<std::string, std::uint64_t> result(self.entries().begin(),
                                              self.entries().end());
  // Both maps are sorted by origin: walk them side by side rather than look
  // every origin up in every peer (this runs for hundreds of peers).
  for (const auto& [id, e] : peers_) {
    const auto& theirs = e.seen.entries();
    auto t = theirs.begin();
    for (auto& [origin, lowest] : result) {
      while (t != theirs.end() && t->first < origin)
        ++t;
      bool has = t != theirs.end() && t->first == origin;
      lowest = std::min(lowest, has ? t->second : std::uint64_t{0});
    }
  }
  return result;
}

const version_vector* peer_versions::find(const std::string& peer,
                                         std::uint64_t incarnation) const {
  auto i = peers_.find(peer);
  return i == peers_.end() || i->second.incarnation != incarnation
           ? nullptr
           : &i->second.seen;
}

bool peer_versions::covered(const std::string& origin,
                            std::uint64_t seq) const {
  return std::any_of(peers_.begin(), peers_.end(), [&](const auto& kv) {
    return kv.second.seen.seen(origin, seq);
  });
}

} // namespace dice
