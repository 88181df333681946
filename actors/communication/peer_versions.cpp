#include "communication/peer_versions.hpp"

#include <algorithm>
#include <iterator>

namespace dice {

void peer_versions::update(const std::string& peer, std::uint64_t incarnation,
                           const version_vector& reported,
                           const version_vector& kept, bool whole,
                           const version_vector& self, millis now) {
  auto [i, added] = peers_.try_emplace(peer);
  auto& e = i->second;
  if (added || incarnation > e.incarnation) {
    // Someone new to the floors, or starting over: nothing compacts until
    // a round has heard it whole.
    e = entry{incarnation, kept, {}, false, 0};
    round_reported_.erase(peer);
    floors_.clear();
  } else if (incarnation == e.incarnation) {
    e.kept.join(kept);
  } else {
    return; // an older incarnation's report, come late
  }
  e.witness = witness_of(reported, whole, self, e.witness);
  if (whole) {
    e.reported_whole = true;
    e.whole_at = now;
    if (round_reported_.count(peer) == 0)
      take_into_round(peer, reported, self);
  }
  // Checked on every report: a round may also complete when the last
  // peer it waited for dies.
  if (!round_reported_.empty() && round_reported_.size() >= peers_.size()) {
    // Every peer reported whole since the round began, and seqs only grow
    // within an incarnation: the lowest each origin got is a floor now.
    floors_ = std::move(round_min_);
    round_min_.clear();
    round_reported_.clear();
  }
}

void peer_versions::acked(const std::string& peer, std::uint64_t incarnation,
                          const version_vector& seen) {
  if (auto i = peers_.find(peer);
      i != peers_.end() && i->second.incarnation == incarnation)
    i->second.kept.join(seen);
}

void peer_versions::forget(const std::string& peer) {
  peers_.erase(peer);
  round_reported_.erase(peer);
}

namespace {

void forget_in(const std::string& origin, version_vector& kept,
               std::vector<peer_versions::seqs>& witness) {
  kept.forget(origin);
  witness.erase(std::remove_if(witness.begin(), witness.end(),
                               [&](const auto& w) { return w.origin == origin; }),
                witness.end());
}

// Lowers each origin's seq in `lows` to what `entries` says of it (0 if
// nothing). Both are sorted by origin: walk them side by side rather than
// look every origin up (this runs for hundreds of origins).
template <class Entries>
void lower_to(std::map<std::string, std::uint64_t>& lows, const Entries& entries) {
  auto t = entries.begin();
  for (auto& [origin, lowest] : lows) {
    while (t != entries.end() && t->first < origin)
      ++t;
    bool has = t != entries.end() && t->first == origin;
    lowest = std::min(lowest, has ? t->second : std::uint64_t{0});
  }
}

// Some seq in first..last is unseen by `v`.
bool misses(const version_vector& v, const std::string& origin,
            std::uint64_t first, std::uint64_t last) {
  auto hi = v.get(origin);
  if (hi >= last)
    return false;
  if (hi + 1 >= first)
    return true; // hi + 1 is unseen, or it would have been absorbed
  auto g = v.beyond_gaps().find(origin);
  if (g == v.beyond_gaps().end())
    return true;
  auto from = g->second.lower_bound(first);
  auto to = g->second.upper_bound(last);
  return static_cast<std::uint64_t>(std::distance(from, to)) < last - first + 1;
}

} // namespace

void peer_versions::forget_origin(const std::string& peer,
                                  const std::string& origin) {
  if (auto i = peers_.find(peer); i != peers_.end())
    forget_in(origin, i->second.kept, i->second.witness);
}

void peer_versions::forget_origin(const std::string& origin) {
  for (auto& [id, e] : peers_)
    forget_in(origin, e.kept, e.witness);
  round_min_.erase(origin);
  floors_.erase(origin);
}

bool peer_versions::knows(const std::string& peer,
                          std::uint64_t incarnation) const {
  auto i = peers_.find(peer);
  return i != peers_.end() && i->second.incarnation == incarnation;
}

const version_vector* peer_versions::kept(const std::string& peer) const {
  auto i = peers_.find(peer);
  return i == peers_.end() ? nullptr : &i->second.kept;
}

bool peer_versions::lacking(const std::string& peer,
                            const version_vector& self) const {
  auto i = peers_.find(peer);
  if (i == peers_.end())
    return false;
  const auto& w = i->second.witness;
  return std::any_of(w.begin(), w.end(), [&](const seqs& r) {
    return misses(self, r.origin, r.first, r.last);
  });
}

bool peer_versions::all_reported_whole_since(millis since) const {
  return std::all_of(peers_.begin(), peers_.end(), [&](const auto& kv) {
    return kv.second.reported_whole && kv.second.whole_at >= since;
  });
}

std::map<std::string, std::uint64_t>
peer_versions::floors(const version_vector& self) const {
  std::map<std::string, std::uint64_t> result(self.entries().begin(),
                                              self.entries().end());
  if (peers_.empty())
    return result; // alone: what this replica has seen
  lower_to(result, floors_);
  return result;
}

std::vector<peer_versions::seqs>
peer_versions::witness_of(const version_vector& reported, bool whole,
                          const version_vector& self,
                          const std::vector<seqs>& before) {
  std::vector<seqs> w;
  auto add = [&](const std::string& origin, std::uint64_t first,
                 std::uint64_t last) {
    if (w.size() >= witness_origins)
      return;
    auto same = [&](const seqs& r) { return r.origin == origin; };
    if (std::none_of(w.begin(), w.end(), same))
      w.push_back({origin, first, last});
  };
  // The old witness first: ops lost stay the proof of it, unless the peer
  // no longer holds them (a whole report leaves their origin out: pruned)
  // or a partial report lists their origin without them.
  for (const auto& r : before) {
    bool listed = reported.get(r.origin) > 0 || reported.has_gaps(r.origin);
    bool held = reported.seen(r.origin, r.last) || (!whole && !listed);
    if (held && misses(self, r.origin, r.first, r.last))
      add(r.origin, r.first, r.last);
  }
  // Past our contiguous prefix, seq hi+1 is unseen: from there to what
  // the peer has contiguously.
  auto mine = self.entries().begin();
  for (const auto& [origin, seq] : reported.entries()) {
    if (w.size() >= witness_origins)
      return w;
    while (mine != self.entries().end() && mine->first < origin)
      ++mine;
    auto hi = mine != self.entries().end() && mine->first == origin
                ? mine->second
                : std::uint64_t{0};
    if (seq > hi)
      add(origin, hi + 1, seq);
  }
  // Past the peer's own gaps: the first op we lack.
  for (const auto& [origin, seqs_past] : reported.beyond_gaps()) {
    auto s = std::find_if(seqs_past.begin(), seqs_past.end(),
                          [&, o = &origin](auto q) { return !self.seen(*o, q); });
    if (s != seqs_past.end())
      add(origin, *s, *s);
  }
  return w;
}

void peer_versions::take_into_round(const std::string& peer,
                                    const version_vector& reported,
                                    const version_vector& self) {
  // The round counts the origins this replica has seen by its first report.
  if (round_reported_.empty())
    round_min_ = std::map<std::string, std::uint64_t>(self.entries().begin(),
                                                      self.entries().end());
  lower_to(round_min_, reported.entries());
  round_reported_.insert(peer);
}

} // namespace dice
