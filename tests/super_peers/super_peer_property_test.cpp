// Seeded properties of the super-peer election over random views of 1 to
// 1024 nodes. Each failure names its seed (CAPTURE); DICE_SOAK=1 runs many
// more seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "super_peers/super_peer_machine.hpp"

using namespace dice;

namespace {

using view = std::vector<super_peer_candidate>;

std::uint64_t seeds() {
  const char* s = std::getenv("DICE_SOAK");
  return s && std::string{s} == "1" ? 3000 : 300;
}

super_peer_candidate random_node(std::mt19937_64& rng, std::uint64_t serial) {
  super_peer_candidate c;
  // Ids in no particular order, so id order and arrival order differ.
  c.id = "n" + std::to_string(rng() % 100'000) + "-" + std::to_string(serial);
  c.heard_directly = rng() % 10 != 0; // some known only by gossip
  // Few distinct capacities: many ties for the hash to break.
  c.capacity = {static_cast<std::uint32_t>(rng() % 4),
                static_cast<std::uint32_t>(rng() % 101),
                static_cast<std::uint32_t>(rng() % 3)};
  return c;
}

/// Mostly small views, now and then up to 1024 nodes.
std::size_t random_size(std::mt19937_64& rng) {
  return rng() % 4 == 0 ? 1 + rng() % 1024 : 1 + rng() % 64;
}

super_peer_config random_config(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
      return parse_super_peers("off");
    case 1:
    case 2:
      return parse_super_peers("auto");
    default:
      return parse_super_peers(std::to_string(1 + rng() % 40));
  }
}

view random_view(std::mt19937_64& rng, std::uint64_t& serial) {
  view v;
  auto n = random_size(rng);
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(random_node(rng, serial++));
  return v;
}

std::size_t eligible(const view& v) {
  return static_cast<std::size_t>(std::count_if(
    v.begin(), v.end(), [](const auto& c) { return c.heard_directly; }));
}

/// What must hold of any result: "" or the first violation found.
std::string problem(const super_peer_config& cfg, const view& v,
                    const super_peer_assignment& r) {
  std::ostringstream out;
  auto k = std::min(cfg.wanted(v.size()), eligible(v));
  if (r.super_peers.size() != k)
    return "super-peers: " + std::to_string(r.super_peers.size())
           + ", configured " + to_string(cfg) + " gives "
           + std::to_string(k);
  if (k == 0)
    return r.attached_to.empty() ? "" : "attachments without super-peers";
  if (!std::is_sorted(r.super_peers.begin(), r.super_peers.end()))
    return "super-peers not sorted";
  if (r.bound != (v.size() + k - 1) / k + cfg.slack)
    return "bound is " + std::to_string(r.bound);
  std::map<std::string, const super_peer_candidate*> by_id;
  for (const auto& c : v)
    by_id[c.id] = &c;
  if (r.attached_to.size() != by_id.size())
    return "attachments for " + std::to_string(r.attached_to.size())
           + " nodes of " + std::to_string(by_id.size());
  std::map<std::string, std::size_t> load;
  for (const auto& [id, sp] : r.attached_to) {
    if (by_id.count(id) == 0)
      return "attachment of a node not live: " + id;
    if (!r.is_super_peer(sp))
      return id + " attached to " + sp + ", not a super-peer";
    if (r.is_super_peer(id) && sp != id)
      return "super-peer " + id + " attached to " + sp;
    if (id != sp)
      ++load[sp];
  }
  for (const auto& [sp, members] : load)
    if (members > r.bound)
      return sp + " serves " + std::to_string(members) + " > bound "
             + std::to_string(r.bound);
  // Capacity first, and only nodes heard directly.
  for (const auto& sp : r.super_peers) {
    auto* s = by_id.at(sp);
    if (!s->heard_directly)
      return "super-peer " + sp + " not heard directly";
    for (const auto& c : v)
      if (c.heard_directly && !r.is_super_peer(c.id)
          && !serves_before(s->id, s->capacity, c.id, c.capacity))
        return c.id + " serves before super-peer " + sp + " but is not one";
  }
  return {};
}

/// The nodes whose attachment differs between two results (present in
/// both).
std::set<std::string> moved(const super_peer_assignment& a,
                            const super_peer_assignment& b) {
  std::set<std::string> out;
  for (const auto& [id, sp] : a.attached_to)
    if (auto it = b.attached_to.find(id); it != b.attached_to.end() && it->second != sp)
      out.insert(id);
  return out;
}

/// The most members any super-peer of `r` serves.
std::size_t max_load(const super_peer_assignment& r) {
  std::map<std::string, std::size_t> load;
  std::size_t most = 0;
  for (const auto& [id, sp] : r.attached_to)
    if (id != sp)
      most = std::max(most, ++load[sp]);
  return most;
}

std::set<std::string> difference(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
  std::set<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                      std::inserter(out, out.end()));
  return out;
}

} // namespace

TEST_CASE("super-peers: every node computing from the same view agrees",
          "[super_peers][property]") {
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng{seed};
    std::uint64_t serial = 0;
    auto cfg = random_config(rng);
    auto v = random_view(rng, serial);
    // Another node lists the same view in its own order, some rows twice.
    auto shuffled = v;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    if (!v.empty())
      shuffled.push_back(v[rng() % v.size()]);
    super_peer_machine a{cfg}, b{cfg};
    auto ra = a.update(v);
    REQUIRE(problem(cfg, v, ra).empty());
    auto rb = b.update(shuffled);
    CHECK(rb.super_peers == ra.super_peers);
    CHECK(rb.attached_to == ra.attached_to);
    // A node that saw a part of the view first, then all of it, picks the
    // same super-peers (attachments keep history, the set does not).
    super_peer_machine c{cfg};
    view part(v.begin(), v.begin() + static_cast<long>(rng() % (v.size() + 1)));
    c.update(part);
    auto rc = c.update(v);
    REQUIRE(problem(cfg, v, rc).empty());
    CHECK(rc.super_peers == ra.super_peers);
  }
}

TEST_CASE("super-peers: a joining normal node moves nobody else",
          "[super_peers][property]") {
  std::size_t checked = 0;
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng{seed};
    std::uint64_t serial = 0;
    auto cfg = random_config(rng);
    auto v = random_view(rng, serial);
    super_peer_machine m{cfg};
    m.update(v);
    for (int join = 0; join < 5; ++join) {
      auto before = m.current();
      auto newcomer = random_node(rng, serial++);
      v.push_back(newcomer);
      CAPTURE(newcomer.id);
      auto& after = m.update(v);
      REQUIRE(problem(cfg, v, after).empty());
      if (after.is_super_peer(newcomer.id)
          || cfg.wanted(v.size()) != cfg.wanted(v.size() - 1))
        continue; // not a normal node, or the count grew
      ++checked;
      CHECK(after.super_peers == before.super_peers);
      CHECK(moved(before, after).empty());
    }
  }
  CHECK(checked > seeds()); // the property was put to the test
}

TEST_CASE("super-peers: killing a super-peer moves only its members and "
          "its replacement",
          "[super_peers][property]") {
  std::size_t checked = 0;
  for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng{seed};
    std::uint64_t serial = 0;
    auto cfg = random_config(rng);
    auto v = random_view(rng, serial);
    super_peer_machine m{cfg};
    m.update(v);
    // Some history first: joins, and normal nodes that die (which, like
    // joins, move nobody while the count stays and no super-peer holds
    // more than the bound after: a bound shrinking by several deaths
    // moves the members that score lowest).
    for (int step = 0; step < 6; ++step) {
      auto before = m.current();
      bool join = v.size() < 2 || rng() % 2 == 0;
      std::string gone;
      if (join) {
        v.push_back(random_node(rng, serial++));
      } else {
        auto at = rng() % v.size();
        gone = v[at].id;
        v.erase(v.begin() + static_cast<long>(at));
      }
      auto& after = m.update(v);
      REQUIRE(problem(cfg, v, after).empty());
      if (!gone.empty() && !before.is_super_peer(gone)
          && before.super_peers.size() == after.super_peers.size()
          && max_load(before) <= after.bound) {
        CAPTURE(gone);
        CHECK(after.super_peers == before.super_peers);
        CHECK(moved(before, after).empty());
      }
    }
    auto before = m.current();
    if (before.super_peers.empty())
      continue;
    auto victim = before.super_peers[rng() % before.super_peers.size()];
    CAPTURE(victim);
    v.erase(std::find_if(v.begin(), v.end(),
                         [&](const auto& c) { return c.id == victim; }));
    auto& after = m.update(v);
    REQUIRE(problem(cfg, v, after).empty());
    if (after.super_peers.size() != before.super_peers.size()
        || max_load(before) > after.bound)
      continue; // the count shrank, nobody else may serve, or the bound fell
    ++checked;
    auto left = difference(before.super_peers, after.super_peers);
    auto came = difference(after.super_peers, before.super_peers);
    CHECK(left == std::set<std::string>{victim});
    REQUIRE(came.size() == 1);
    auto heir = *came.begin();
    for (const auto& id : moved(before, after)) {
      INFO(id << " moved from " << before.super_peer_of(id) << " to "
              << after.super_peer_of(id));
      CHECK((id == heir || before.super_peer_of(id) == victim));
    }
  }
  CHECK(checked > seeds() / 2);
}

TEST_CASE("super-peers: invariants hold through random churn",
          "[super_peers][property]") {
  for (std::uint64_t seed = 1; seed <= seeds() / 3; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng{seed};
    std::uint64_t serial = 0;
    auto cfg = random_config(rng);
    auto v = random_view(rng, serial);
    // Two nodes seeing the same views, each listing them its own way.
    super_peer_machine a{cfg}, b{cfg};
    for (int step = 0; step < 30; ++step) {
      CAPTURE(step);
      switch (rng() % 4) {
        case 0: // a burst of joins
          for (auto n = rng() % 8; n-- > 0;)
            v.push_back(random_node(rng, serial++));
          break;
        case 1: // a burst of deaths
          for (auto n = rng() % 8; n-- > 0 && !v.empty();)
            v.erase(v.begin() + static_cast<long>(rng() % v.size()));
          break;
        case 2: // capacities change (a node drained, a battery ran down)
          for (auto& c : v)
            if (rng() % 10 == 0)
              c.capacity.slots = static_cast<std::uint32_t>(rng() % 4);
          break;
        default: // reachability changes: heard directly, or not any more
          for (auto& c : v)
            if (rng() % 10 == 0)
              c.heard_directly = !c.heard_directly;
      }
      auto ra = a.update(v);
      REQUIRE(problem(cfg, v, ra).empty());
      auto shuffled = v;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      auto& rb = b.update(shuffled);
      REQUIRE(rb.attached_to == ra.attached_to);
    }
  }
}
