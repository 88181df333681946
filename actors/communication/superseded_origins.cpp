// Pruning the version vector: an origin is a node incarnation, and every
// restart adds one. Once a newer incarnation of its node is heard of, an
// origin issues no more ops; after prune_superseded_after_ms, and once no
// live peer reports fewer of its ops, it leaves this replica's vector (and
// so its heartbeats) and its ops leave the op log. Replicas prune at
// different times, so a peer's report of a pruned origin is ignored rather
// than taken for ops this replica lacks; a replica that never got some of
// a pruned origin's ops converges by snapshot, as for any difference the
// op log cannot tell (equal vectors, different digests).
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "communication/communication_machine.hpp"
#include "vocabulary/queue_messages.hpp"

namespace dice {

namespace {

/// Pruned origins remembered, so their ops relayed late are not taken for
/// new ones (oldest forgotten first; ~40 bytes each).
constexpr std::size_t pruned_origins_kept = 65'536;

} // namespace

void communication_machine::note_incarnation(const std::string& node,
                                             std::uint64_t incarnation,
                                             millis now) {
  auto& newest = newest_incarnation_[node];
  if (incarnation <= newest)
    return;
  newest = incarnation;
  note_origins(now);
}

void communication_machine::note_origins(millis now) {
  for (const auto& [origin, seq] : seen_.entries())
    note_origin(origin, now);
  for (const auto& [origin, seqs] : seen_.beyond_gaps())
    note_origin(origin, now);
}

void communication_machine::note_origin(const std::string& origin, millis now) {
  if (origin == origin_ || superseded_.count(origin) > 0)
    return;
  auto parts = split_origin(origin);
  if (!parts)
    return;
  // Ops of an incarnation prove it exists: its node's older ones are
  // superseded, whether or not a heartbeat of it was ever heard here.
  if (parts->second > newest_incarnation_[parts->first])
    return note_incarnation(parts->first, parts->second, now);
  if (newer_incarnation_known(*parts)) {
    superseded_.emplace(origin, now);
    ++heartbeat_changes_; // it may now be left out of heartbeats
    heartbeat_over_budget_ = heartbeat_over_budget_ || over_heartbeat_budget();
  }
}

bool communication_machine::newer_incarnation_known(
  const std::pair<std::string, std::uint64_t>& origin) const {
  auto newest = newest_incarnation_.find(origin.first);
  return newest != newest_incarnation_.end() && origin.second < newest->second;
}

void communication_machine::forget_unreported_superseded(
  const std::string& peer, const version_vector& reported) {
  const auto* theirs = peers_.kept(peer);
  if (theirs == nullptr)
    return;
  std::vector<std::string> gone;
  auto check = [&](const std::string& origin) {
    if (reported.get(origin) == 0 && !reported.has_gaps(origin))
      if (auto parts = split_origin(origin); parts && newer_incarnation_known(*parts))
        gone.push_back(origin);
  };
  for (const auto& [origin, seq] : theirs->entries())
    check(origin);
  for (const auto& [origin, seqs] : theirs->beyond_gaps())
    if (theirs->get(origin) == 0)
      check(origin);
  for (const auto& origin : gone)
    peers_.forget_origin(peer, origin);
}

bool communication_machine::settled(const std::string& origin,
                                    millis since) const {
  // Every live peer has seen exactly its ops that this replica has (gaps
  // included: ops lost with a node that died cannot be filled by anyone),
  // or reports nothing of it: pruned already, or it will get what it
  // lacks by snapshot. Its reports are kept from `since`, when it was
  // found superseded: only a whole report since says all of it.
  if (!peers_.all_reported_whole_since(since))
    return false;
  auto mine = seen_.only(origin);
  bool settled = true;
  peers_.for_each([&](const version_vector& theirs) {
    auto seen = theirs.only(origin);
    settled = settled && (seen == mine || seen == version_vector{});
  });
  return settled;
}

std::size_t communication_machine::versions_bytes() const {
  wire::Heartbeat hb;
  seen_.to_wire(hb.mutable_versions());
  return hb.ByteSizeLong();
}

bool communication_machine::over_heartbeat_budget() const {
  return !superseded_.empty() && versions_bytes() > cfg_.heartbeat_versions_bytes;
}

void communication_machine::forget_superseded(const std::string& origin) {
  seen_.forget(origin);
  peers_.forget_origin(origin);
  log_.compact([&origin](const std::string& o) {
    return o == origin ? std::numeric_limits<std::uint64_t>::max()
                       : std::uint64_t{0};
  });
  pruned_.insert(origin);
  pruned_order_.push_back(origin);
  if (pruned_order_.size() > pruned_origins_kept) {
    pruned_.erase(pruned_order_.front());
    pruned_order_.pop_front();
  }
  ++heartbeat_changes_;
  ++counters_.origins_pruned;
}

void communication_machine::prune(millis now) {
  for (auto i = superseded_.begin(); i != superseded_.end();) {
    if (now - i->second < cfg_.prune_superseded_after_ms
        || !settled(i->first, i->second)) {
      ++i;
      continue;
    }
    forget_superseded(i->first);
    i = superseded_.erase(i);
  }
  // Restarts faster than prune_superseded_after_ms would grow the vector
  // (and every heartbeat) with the restart rate. Past the heartbeat budget
  // the settled superseded origins leave without waiting, oldest first:
  // waiting only covers ops still relayed late, and a replica that gets
  // one of them after the prune converges by snapshot, as for any pruned
  // origin. An origin some live peer is still catching up on stays.
  heartbeat_over_budget_ = over_heartbeat_budget();
  if (!heartbeat_over_budget_)
    return;
  std::vector<std::pair<millis, std::string>> oldest_first;
  for (const auto& [origin, since] : superseded_)
    oldest_first.emplace_back(since, origin);
  std::sort(oldest_first.begin(), oldest_first.end());
  auto bytes = versions_bytes();
  for (const auto& [since, origin] : oldest_first) {
    if (bytes <= cfg_.heartbeat_versions_bytes)
      break;
    if (!settled(origin, since))
      continue;
    forget_superseded(origin);
    superseded_.erase(origin);
    ++counters_.origins_pruned_early;
    bytes = versions_bytes();
  }
  heartbeat_over_budget_ = !superseded_.empty()
                           && bytes > cfg_.heartbeat_versions_bytes;
}

void communication_machine::strip_pruned(version_vector& v) const {
  if (pruned_.empty())
    return;
  std::vector<std::string> drop;
  for (const auto& [origin, seq] : v.entries())
    if (pruned_.count(origin) > 0)
      drop.push_back(origin);
  for (const auto& [origin, seqs] : v.beyond_gaps())
    if (pruned_.count(origin) > 0)
      drop.push_back(origin);
  for (const auto& origin : drop)
    v.forget(origin);
}

version_vector communication_machine::kept_of(const version_vector& reported) const {
  return reported.only_if([this](const std::string& origin) {
    return origin == origin_ || superseded_.count(origin) > 0;
  });
}

} // namespace dice
