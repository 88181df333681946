#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simulation/sim_transport.hpp"

using namespace dice;

namespace {

const std::string a = "10.0.0.1:7400";
const std::string b = "10.0.0.2:7400";
const std::string c = "10.0.0.3:7400";

struct received {
  std::string bytes, from;
};

/// A transport started with a handler that records what it receives.
struct endpoint_under_test {
  std::shared_ptr<transport> net;
  std::vector<received> got;

  endpoint_under_test(sim_hub& hub, const std::string& addr)
    : net(hub.make_transport(addr)) {
    net->start([this](std::vector<datagram> batch) {
      for (auto& d : batch)
        got.push_back({std::move(d.bytes), std::move(d.from)});
    });
  }
};

} // namespace

TEST_CASE("sim_transport delivers when due, from the sender's address",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  hub.network().set_default_faults({0, 0, 5, 5});
  endpoint_under_test ea{hub, a};
  endpoint_under_test eb{hub, b};
  hub.now = 100;
  CHECK(ea.net->send_to(b, "hello"));
  CHECK(hub.deliver_due(104) == 0);
  CHECK(eb.got.empty());
  CHECK(hub.deliver_due(105) == 1);
  REQUIRE(eb.got.size() == 1);
  CHECK(eb.got[0].bytes == "hello");
  CHECK(eb.got[0].from == a);
  CHECK(ea.got.empty());
  CHECK(hub.network().counters().delivered == 1);
}

TEST_CASE("sim_transport broadcast fans out one datagram per target",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  endpoint_under_test ea{hub, a};
  endpoint_under_test eb{hub, b};
  endpoint_under_test ec{hub, c};
  CHECK(ea.net->broadcast({b, c}, "hb") == 2);
  CHECK(hub.network().counters().sent == 2);
  CHECK(hub.deliver_due(10) == 2);
  REQUIRE(eb.got.size() == 1);
  REQUIRE(ec.got.size() == 1);
  CHECK(eb.got[0].from == a);
  CHECK(ec.got[0].bytes == "hb");
  CHECK(ea.got.empty()); // not a target
  // Only the listed targets, as with UDP fan-out.
  CHECK(ea.net->broadcast({c}, "only-c") == 1);
  hub.deliver_due(20);
  CHECK(eb.got.size() == 1);
  CHECK(ec.got.size() == 2);
  CHECK(ea.net->broadcast({}, "nobody") == 0);
}

TEST_CASE("sim_transport refuses addresses that are not on the network",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  endpoint_under_test ea{hub, a};
  endpoint_under_test eb{hub, b};
  CHECK_FALSE(ea.net->send_to("10.9.9.9:1", "x"));
  CHECK(ea.net->broadcast({b, "10.9.9.9:1"}, "y") == 1);
  hub.deliver_due(10);
  CHECK(eb.got.size() == 1);
  CHECK(hub.network().counters().sent == 1);
}

TEST_CASE("sim_transport obeys the network's faults",
          "[bridge][sim_transport]") {
  SECTION("total loss") {
    sim_hub hub{3};
    hub.network().set_default_faults({1.0, 0, 1, 1});
    endpoint_under_test ea{hub, a};
    endpoint_under_test eb{hub, b};
    CHECK(ea.net->send_to(b, "lost")); // handed over: UDP cannot tell
    CHECK(hub.deliver_due(100) == 0);
    CHECK(eb.got.empty());
    CHECK(hub.network().counters().dropped_loss == 1);
  }
  SECTION("a crashed receiver gets nothing until it restarts") {
    sim_hub hub{3};
    endpoint_under_test ea{hub, a};
    endpoint_under_test eb{hub, b};
    hub.network().crash(b);
    ea.net->send_to(b, "while down");
    hub.deliver_due(10);
    CHECK(eb.got.empty());
    hub.network().restart(b);
    ea.net->send_to(b, "after restart");
    hub.deliver_due(20);
    REQUIRE(eb.got.size() == 1);
    CHECK(eb.got[0].bytes == "after restart");
  }
  SECTION("a partition cuts both directions") {
    sim_hub hub{3};
    endpoint_under_test ea{hub, a};
    endpoint_under_test eb{hub, b};
    endpoint_under_test ec{hub, c};
    hub.network().partition({{a}, {b, c}});
    ea.net->broadcast({b, c}, "x");
    eb.net->send_to(a, "y");
    eb.net->send_to(c, "z");
    hub.deliver_due(10);
    CHECK(ea.got.empty());
    CHECK(eb.got.empty());
    REQUIRE(ec.got.size() == 1);
    CHECK(ec.got[0].bytes == "z");
  }
}

TEST_CASE("sim_transport sends at the hub's time and replies at delivery time",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  hub.network().set_default_faults({0, 0, 10, 10});
  std::vector<std::pair<millis, std::string>> at_a;
  auto ta = hub.make_transport(a);
  auto tb = hub.make_transport(b);
  ta->start([&](std::vector<datagram> batch) {
    for (auto& d : batch)
      at_a.emplace_back(hub.now, d.bytes);
  });
  // b answers every datagram at once, from inside the handler.
  tb->start([&](std::vector<datagram> batch) {
    for (auto& d : batch)
      tb->send_to(d.from, "re:" + d.bytes);
  });
  hub.now = 50;
  ta->send_to(b, "ping");
  // Stepping far ahead: the ping is due at 60, the reply then at 70.
  CHECK(hub.deliver_due(65) == 1);
  CHECK(hub.now == 65);
  CHECK(at_a.empty());
  CHECK(hub.deliver_due(75) == 1);
  REQUIRE(at_a.size() == 1);
  CHECK(at_a[0].second == "re:ping");
  // The reply was sent at 65 (the hub time during delivery), so due at 75.
  CHECK(at_a[0].first == 75);
  // deliver_due never moves the hub's clock backwards.
  hub.deliver_due(10);
  CHECK(hub.now == 75);
}

TEST_CASE("a stopped transport receives nothing", "[bridge][sim_transport]") {
  sim_hub hub{1};
  endpoint_under_test ea{hub, a};
  endpoint_under_test eb{hub, b};
  eb.net->stop();
  ea.net->send_to(b, "to nobody");
  CHECK(hub.deliver_due(10) == 0);
  CHECK(eb.got.empty());
  CHECK(hub.undeliverable() == 1);
  eb.net->stop(); // idempotent
}

TEST_CASE("a successor on the same address takes over from its predecessor",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  endpoint_under_test ea{hub, a};
  // A restarted node: a new transport on the same address starts before the
  // old one is gone.
  auto old_b = std::make_unique<endpoint_under_test>(hub, b);
  auto new_b = std::make_unique<endpoint_under_test>(hub, b);
  ea.net->send_to(b, "first");
  CHECK(hub.deliver_due(10) == 1);
  CHECK(old_b->got.empty());
  REQUIRE(new_b->got.size() == 1);
  // The old one stopping and going away does not unhook its successor.
  old_b->net->stop();
  old_b.reset();
  ea.net->send_to(b, "second");
  CHECK(hub.deliver_due(20) == 1);
  REQUIRE(new_b->got.size() == 2);
  CHECK(new_b->got[1].bytes == "second");
  CHECK(hub.undeliverable() == 0);
}

TEST_CASE("the same seed gives the same deliveries", "[bridge][sim_transport]") {
  auto run = [](std::uint64_t seed) {
    sim_hub hub{seed};
    hub.network().set_default_faults({0.3, 0.2, 1, 40});
    endpoint_under_test ea{hub, a};
    endpoint_under_test eb{hub, b};
    endpoint_under_test ec{hub, c};
    std::string trace;
    for (millis t = 0; t < 200; t += 5) {
      hub.now = t;
      ea.net->broadcast({b, c}, "a" + std::to_string(t));
      eb.net->broadcast({a, c}, "b" + std::to_string(t));
      hub.deliver_due(t);
    }
    hub.deliver_due(1000);
    for (auto* e : {&ea, &eb, &ec})
      for (auto& r : e->got)
        trace += r.from + ">" + r.bytes + " ";
    return trace;
  };
  auto first = run(5);
  CHECK_FALSE(first.empty());
  CHECK(run(5) == first);
  CHECK(run(6) != first);
}

TEST_CASE("with the hub's multicast a broadcast leaves once and reaches "
          "every other node, each copy on its own link",
          "[bridge][sim_transport]") {
  sim_hub hub{1};
  hub.multicast = true;
  endpoint_under_test ea{hub, a};
  endpoint_under_test eb{hub, b};
  endpoint_under_test ec{hub, c};
  // The targets do not matter: the group reaches every attached node.
  CHECK(ea.net->broadcast({b}, "to the group") == 1);
  hub.deliver_due(1000);
  REQUIRE(eb.got.size() == 1);
  REQUIRE(ec.got.size() == 1);
  CHECK(ec.got[0].bytes == "to the group");
  CHECK(ec.got[0].from == a);
  CHECK(ea.got.empty()); // not back to the sender
  // Losing b's copy loses only b's.
  hub.network().set_link_faults(a, b, {1.0, 0, 1, 1});
  CHECK(ea.net->broadcast({}, "again") == 1);
  hub.deliver_due(2000);
  CHECK(eb.got.size() == 1);
  CHECK(ec.got.size() == 2);
}
