#include "super_peers/super_peer_machine.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace dice {

bool super_peer_assignment::is_super_peer(const std::string& id) const {
  return std::binary_search(super_peers.begin(), super_peers.end(), id);
}

std::string super_peer_assignment::super_peer_of(const std::string& id) const {
  auto it = attached_to.find(id);
  return it == attached_to.end() ? std::string{} : it->second;
}

super_peer_machine::super_peer_machine(super_peer_config cfg) : cfg_(cfg) {}

namespace {

/// The super-peer of highest score with `member` among those `allowed`
/// (at least one must be).
template <class Allowed>
std::string best_for(const std::string& member,
                     const std::set<std::string>& serving, Allowed allowed) {
  std::string best;
  std::uint64_t best_score = 0;
  for (const auto& s : serving) {
    if (!allowed(s))
      continue;
    auto score = super_peer_score(member, s);
    if (best.empty() || score > best_score) {
      best = s;
      best_score = score;
    }
  }
  return best;
}

} // namespace

const super_peer_assignment&
super_peer_machine::update(std::vector<super_peer_candidate> live) {
  // The input's order must not matter: every node lists its view its own way.
  std::stable_sort(live.begin(), live.end(),
                   [](const auto& a, const auto& b) { return a.id < b.id; });
  live.erase(std::unique(live.begin(), live.end(),
                         [](const auto& a, const auto& b) { return a.id == b.id; }),
             live.end());
  std::vector<const super_peer_candidate*> eligible;
  for (const auto& c : live)
    if (c.heard_directly)
      eligible.push_back(&c);
  auto n = live.size();
  auto k = std::min(cfg_.wanted(n), eligible.size());
  if (k == 0) {
    current_ = {};
    return current_;
  }
  std::partial_sort(eligible.begin(), eligible.begin() + static_cast<long>(k),
                    eligible.end(), [](const auto* a, const auto* b) {
                      return serves_before(a->id, a->capacity, b->id, b->capacity);
                    });
  std::set<std::string> serving;
  std::vector<std::string> entries; // new super-peers, best first
  const auto& prev = current_;
  for (std::size_t i = 0; i < k; ++i) {
    serving.insert(eligible[i]->id);
    if (!prev.is_super_peer(eligible[i]->id))
      entries.push_back(eligible[i]->id);
  }
  // Each super-peer that stops serving hands its members to one that
  // starts, so a replacement moves no one else.
  std::map<std::string, std::string> heir;
  std::set<std::string> unpaired;
  auto next_entry = entries.begin();
  for (const auto& s : prev.super_peers)
    if (serving.count(s) == 0 && next_entry != entries.end())
      heir[s] = *next_entry++;
  unpaired.insert(next_entry, entries.end());

  auto share = (n + k - 1) / k;
  super_peer_assignment next;
  next.super_peers.assign(serving.begin(), serving.end());
  next.bound = share + cfg_.slack;
  auto& att = next.attached_to;
  std::map<std::string, std::size_t> load;
  for (const auto& s : serving) {
    att[s] = s;
    load[s] = 0;
  }
  std::vector<std::string> orphans;
  for (const auto& c : live) {
    if (serving.count(c.id) > 0)
      continue;
    std::string to;
    if (auto was = prev.attached_to.find(c.id); was != prev.attached_to.end()) {
      if (serving.count(was->second) > 0)
        to = was->second;
      else if (auto h = heir.find(was->second); h != heir.end())
        to = h->second;
    }
    if (to.empty()) {
      orphans.push_back(c.id);
    } else {
      att[c.id] = to;
      ++load[to];
    }
  }
  // A super-peer added by a growing count draws the members whose best
  // choice it now is (as rendezvous hashing moves keys to a new bucket).
  if (!unpaired.empty())
    for (auto& [member, to] : att) {
      if (serving.count(member) > 0)
        continue;
      auto top = best_for(member, serving, [](const auto&) { return true; });
      if (top != to && unpaired.count(top) > 0 && load[top] < share) {
        --load[to];
        ++load[top];
        to = top;
      }
    }
  // Over the bound (the share shrank, or a group was inherited whole):
  // the members that score lowest with their super-peer move.
  for (const auto& s : serving) {
    if (load[s] <= next.bound)
      continue;
    std::vector<std::pair<std::uint64_t, std::string>> members;
    for (const auto& [member, to] : att)
      if (to == s && member != s)
        members.emplace_back(super_peer_score(member, s), member);
    std::sort(members.begin(), members.end());
    for (std::size_t i = 0; load[s] > next.bound; ++i) {
      att.erase(members[i].second);
      orphans.push_back(members[i].second);
      --load[s];
    }
  }
  // Fewer members than k * share wait, so one with room always exists.
  std::sort(orphans.begin(), orphans.end());
  for (const auto& member : orphans) {
    auto to = best_for(member, serving,
                       [&load, share](const auto& s) { return load[s] < share; });
    att[member] = to;
    ++load[to];
  }
  current_ = std::move(next);
  return current_;
}

} // namespace dice
