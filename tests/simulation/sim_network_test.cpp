#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "simulation/sim_network.hpp"

using namespace dice;

namespace {

const std::string a = "10.0.0.1:7400";
const std::string b = "10.0.0.2:7400";
const std::string c = "10.0.0.3:7400";
const std::string d = "10.0.0.4:7400";
const std::string e = "10.0.0.50:7401";

sim_network make_net(std::uint64_t seed, link_faults f,
                     std::vector<std::string> addrs = {a, b, c, d}) {
  sim_network net{seed};
  net.set_default_faults(f);
  for (const auto& addr : addrs)
    net.attach(addr);
  return net;
}

/// Pops everything still pending, however far in the future.
std::vector<sim_delivery> drain(sim_network& net) {
  std::vector<sim_delivery> out;
  while (auto t = net.next_time())
    while (auto del = net.pop_due(*t))
      out.push_back(std::move(*del));
  return out;
}

/// The invariant that lets a test account for every datagram.
void check_accounting(const sim_network& net) {
  const auto& k = net.counters();
  CHECK(k.sent + k.duplicated
        == k.delivered + k.dropped_loss + k.dropped_partition
             + k.dropped_crash + net.in_flight());
}

/// One datagram from -> to: was it delivered?
bool reaches(sim_network& net, millis now, const std::string& from,
             const std::string& to) {
  net.send(now, from, to, "probe");
  auto got = drain(net);
  return got.size() == 1 && got[0].from == from && got[0].to == to;
}

std::string trace(std::uint64_t seed) {
  auto net = make_net(seed, {0.3, 0.2, 1, 50});
  std::string out;
  for (millis t = 0; t < 100; ++t) {
    net.broadcast(t, net.nodes()[t % 4], "m" + std::to_string(t));
    while (auto del = net.pop_due(t))
      out += std::to_string(del->at) + " " + del->from + ">" + del->to + " "
             + del->bytes + "\n";
  }
  for (auto& del : drain(net))
    out += std::to_string(del.at) + " " + del.from + ">" + del.to + " "
           + del.bytes + "\n";
  return out;
}

} // namespace

TEST_CASE("without faults datagrams arrive in time order, ties in send order",
          "[sim_network]") {
  auto net = make_net(1, {0, 0, 5, 5});
  net.send(0, a, b, "first");
  net.send(2, a, b, "third");
  net.send(1, b, a, "second");
  net.send(2, c, a, "fourth"); // same delivery time as "third", sent later
  CHECK(net.in_flight() == 4);
  REQUIRE(net.next_time() == millis{5});
  CHECK_FALSE(net.pop_due(4));
  auto got = drain(net);
  REQUIRE(got.size() == 4);
  CHECK(got[0].bytes == "first");
  CHECK(got[0].at == 5);
  CHECK(got[0].from == a);
  CHECK(got[0].to == b);
  CHECK(got[1].bytes == "second");
  CHECK(got[1].at == 6);
  CHECK(got[2].bytes == "third");
  CHECK(got[3].bytes == "fourth");
  CHECK(got[3].at == 7);
  CHECK(net.counters().delivered == 4);
  CHECK_FALSE(net.next_time());
  CHECK(net.in_flight() == 0);
}

TEST_CASE("pop_due delivers only what is due", "[sim_network]") {
  auto net = make_net(1, {0, 0, 10, 10});
  net.send(0, a, b, "x");
  net.send(5, a, b, "y");
  CHECK_FALSE(net.pop_due(9));
  auto x = net.pop_due(12);
  REQUIRE(x);
  CHECK(x->bytes == "x");
  CHECK_FALSE(net.pop_due(12));
  CHECK(net.pop_due(15)->bytes == "y");
}

TEST_CASE("the same seed replays the same trace, another seed does not",
          "[sim_network]") {
  auto first = trace(42);
  CHECK_FALSE(first.empty());
  CHECK(trace(42) == first);
  CHECK(trace(43) != first);
}

TEST_CASE("loss drops close to the configured share of datagrams",
          "[sim_network]") {
  const std::uint64_t seed = 7;
  INFO("seed " << seed);
  auto net = make_net(seed, {0.2, 0, 1, 1});
  const int n = 10000;
  for (int i = 0; i < n; ++i)
    net.send(i, a, b, "x");
  auto got = drain(net);
  const auto& k = net.counters();
  // Expected 2000 with a standard deviation of 40: +-200 is 5 sigma.
  CHECK(k.dropped_loss >= 1800);
  CHECK(k.dropped_loss <= 2200);
  CHECK(got.size() == n - k.dropped_loss);
  CHECK(k.delivered == got.size());
}

TEST_CASE("duplicates are delivered twice and counted", "[sim_network]") {
  const std::uint64_t seed = 11;
  INFO("seed " << seed);
  auto net = make_net(seed, {0, 0.5, 1, 20});
  const int n = 2000;
  for (int i = 0; i < n; ++i)
    net.send(i, a, b, std::to_string(i));
  std::map<std::string, int> copies;
  for (auto& del : drain(net))
    ++copies[del.bytes];
  const auto& k = net.counters();
  CHECK(copies.size() == n); // nothing lost
  auto twice = std::count_if(copies.begin(), copies.end(),
                             [](auto& kv) { return kv.second == 2; });
  auto more = std::count_if(copies.begin(), copies.end(),
                            [](auto& kv) { return kv.second > 2; });
  CHECK(more == 0);
  CHECK(static_cast<std::uint64_t>(twice) == k.duplicated);
  CHECK(k.duplicated >= 900); // expected 1000, sd ~22
  CHECK(k.duplicated <= 1100);
  CHECK(k.delivered == n + k.duplicated);
}

TEST_CASE("a delay range reorders datagrams within its bounds",
          "[sim_network]") {
  auto inversions = [](link_faults f) {
    auto net = make_net(3, f);
    for (millis t = 0; t < 200; ++t)
      net.send(t, a, b, std::to_string(t));
    auto got = drain(net);
    REQUIRE(got.size() == 200);
    int count = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      auto sent_at = std::stoll(got[i].bytes);
      CHECK(got[i].at >= sent_at + f.min_delay);
      CHECK(got[i].at <= sent_at + f.max_delay);
      if (i > 0) {
        CHECK(got[i].at >= got[i - 1].at);
        if (sent_at < std::stoll(got[i - 1].bytes))
          ++count;
      }
    }
    return count;
  };
  CHECK(inversions({0, 0, 1, 100}) > 10);
  CHECK(inversions({0, 0, 30, 30}) == 0);
}

TEST_CASE("delays cover the whole configured range", "[sim_network]") {
  auto net = make_net(4, {0, 0, 10, 20});
  for (int i = 0; i < 500; ++i)
    net.send(0, a, b, "x");
  std::map<millis, int> seen;
  for (auto& del : drain(net))
    ++seen[del.at];
  // 11 possible delays, 500 draws: each one shows up.
  REQUIRE(seen.size() == 11);
  CHECK(seen.begin()->first == 10);
  CHECK(seen.rbegin()->first == 20);
}

TEST_CASE("link faults override the default for one direction only",
          "[sim_network]") {
  auto net = make_net(5, {0, 0, 1, 1});
  net.set_link_faults(a, b, {1, 0, 1, 1});
  for (int i = 0; i < 20; ++i) {
    net.send(i, a, b, "lost");
    net.send(i, b, a, "kept");
    net.send(i, a, c, "kept");
  }
  auto got = drain(net);
  CHECK(got.size() == 40);
  CHECK(std::none_of(got.begin(), got.end(),
                     [](auto& del) { return del.bytes == "lost"; }));
  CHECK(net.counters().dropped_loss == 20);
}

TEST_CASE("broadcast reaches every other attached node", "[sim_network]") {
  auto net = make_net(1, {0, 0, 1, 1});
  net.crash(d);
  net.broadcast(0, a, "hello");
  auto got = drain(net);
  REQUIRE(got.size() == 2);
  CHECK(got[0].to == b);
  CHECK(got[1].to == c);
  CHECK(net.counters().sent == 3);
  CHECK(net.counters().dropped_crash == 1); // d is down
}

TEST_CASE("partitions drop across groups, not within, heal restores",
          "[sim_network]") {
  auto net = make_net(1, {0, 0, 1, 1});
  net.partition({{a, b}, {c}}); // d, unlisted, forms the extra group
  net.attach(e);                // attached later and unlisted: joins d
  CHECK(reaches(net, 0, a, b));
  CHECK(reaches(net, 0, b, a));
  CHECK(reaches(net, 0, d, e));
  CHECK_FALSE(reaches(net, 0, a, c));
  CHECK_FALSE(reaches(net, 0, c, d));
  CHECK_FALSE(reaches(net, 0, e, b));
  CHECK(net.counters().dropped_partition == 3);

  net.heal();
  CHECK(reaches(net, 10, a, c));
  CHECK(reaches(net, 10, c, d));
  CHECK(reaches(net, 10, e, b));

  SECTION("a partition made while a datagram is in flight drops it") {
    net.send(20, a, c, "late");
    net.partition({{a}, {c}});
    CHECK(drain(net).empty());
    CHECK(net.counters().dropped_partition == 4);
    net.heal();
    CHECK(drain(net).empty()); // healing does not resurrect it
  }
  SECTION("a node listed in two groups is rejected") {
    CHECK_THROWS_AS(net.partition({{a, b}, {b, c}}), std::invalid_argument);
  }
  check_accounting(net);
}

TEST_CASE("a crash loses in-flight and new traffic, restart resurrects none",
          "[sim_network]") {
  auto net = make_net(1, {0, 0, 10, 10});
  net.send(0, a, b, "old");
  net.send(0, b, a, "from b before the crash");
  net.crash(b);
  CHECK_FALSE(net.is_up(b));
  CHECK(net.in_flight() == 1); // b's inbound datagram is gone
  CHECK(net.counters().dropped_crash == 1);
  net.send(1, a, b, "to a down node");
  net.send(1, b, c, "from a down node");
  CHECK(net.counters().dropped_crash == 3);

  net.restart(b);
  CHECK(net.is_up(b));
  net.send(2, a, b, "new");
  auto got = drain(net);
  REQUIRE(got.size() == 2);
  CHECK(got[0].bytes == "from b before the crash");
  CHECK(got[1].bytes == "new");
  CHECK(got[1].to == b);

  net.send(30, a, "10.9.9.9:1", "to nobody");
  CHECK(net.counters().dropped_crash == 4);
  CHECK_FALSE(net.is_up("10.9.9.9:1"));
  CHECK_THROWS_AS(net.crash("10.9.9.9:1"), std::invalid_argument);
  check_accounting(net);
}

TEST_CASE("counters account for every datagram", "[sim_network]") {
  const std::uint64_t seed = 99;
  INFO("seed " << seed);
  auto net = make_net(seed, {0.1, 0.1, 1, 40}, {a, b, c, d, e});
  std::uint64_t popped = 0;
  for (millis t = 0; t < 500; ++t) {
    auto nodes = net.nodes();
    net.broadcast(t, nodes[t % nodes.size()], "b" + std::to_string(t));
    net.send(t, nodes[(t + 1) % nodes.size()], nodes[(t * 7) % nodes.size()],
             "u" + std::to_string(t));
    if (t == 100)
      net.partition({{a, b}, {c}});
    if (t == 200)
      net.crash(c);
    if (t == 250)
      net.heal();
    if (t == 300)
      net.restart(c);
    while (net.pop_due(t))
      ++popped;
    check_accounting(net);
  }
  popped += drain(net).size();
  check_accounting(net);
  const auto& k = net.counters();
  CHECK(net.in_flight() == 0);
  CHECK(k.delivered == popped);
  // Every kind of fault was exercised, so the sum above covers them all.
  CHECK(k.dropped_loss > 0);
  CHECK(k.dropped_partition > 0);
  CHECK(k.dropped_crash > 0);
  CHECK(k.duplicated > 0);
}

TEST_CASE("invalid faults are rejected with a clear message",
          "[sim_network]") {
  sim_network net{1};
  using Catch::Matchers::Contains;
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(net.set_default_faults({-0.1, 0, 1, 1}), Contains("loss"));
  CHECK_THROWS_WITH(net.set_default_faults({1.5, 0, 1, 1}), Contains("loss"));
  CHECK_THROWS_WITH(net.set_default_faults({nan, 0, 1, 1}), Contains("loss"));
  CHECK_THROWS_WITH(net.set_link_faults(a, b, {0, 2, 1, 1}),
                    Contains("duplicate"));
  CHECK_THROWS_WITH(net.set_link_faults(a, b, {0, 0, 5, 4}),
                    Contains("min_delay (5 ms) exceeds max_delay (4 ms)"));
  CHECK_THROWS_WITH(net.set_default_faults({0, 0, -1, 4}),
                    Contains("min_delay must be >= 0"));
  CHECK_THROWS_AS(net.set_default_faults({0, 0, -1, 4}),
                  std::invalid_argument);
  // Boundaries are valid, and a rejected call leaves the faults unchanged.
  CHECK_NOTHROW(net.set_default_faults({1, 1, 0, 0}));
  CHECK_NOTHROW(net.set_link_faults(a, b, {0, 0, 3, 3}));
  net.attach(a);
  net.attach(b);
  net.send(0, b, a, "x");
  CHECK(net.counters().dropped_loss == 1);
}
