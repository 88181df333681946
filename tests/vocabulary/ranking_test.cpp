#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "vocabulary/ranking.hpp"

using namespace dice;

namespace {

wire::Claim base_claim() {
  wire::Claim c;
  c.set_node_id("n5");
  c.set_data_objects(5);
  c.set_battery(50);
  c.set_dequeue_time_ms(1000);
  c.set_device_class(2);
  c.set_is_enqueuer(false);
  return c;
}

// One function per criterion, in the paper's order; each makes a claim
// better than the base on that criterion alone.
using improve = std::function<void(wire::Claim&)>;
const std::vector<improve> improvements = {
  [](wire::Claim& c) { c.set_data_objects(6); },
  [](wire::Claim& c) { c.set_battery(51); },
  [](wire::Claim& c) { c.set_dequeue_time_ms(999); },
  [](wire::Claim& c) { c.set_device_class(1); },
  [](wire::Claim& c) { c.set_is_enqueuer(true); },
  [](wire::Claim& c) { c.set_node_id("n4"); },
};

// `a` is better on criterion k; `b` is better on every later one.
void check_criterion_decides(std::size_t k) {
  auto a = base_claim();
  auto b = base_claim();
  CHECK(compare_claims(a, b) == 0);
  improvements[k](a);
  CHECK(better_claim(a, b));
  CHECK_FALSE(better_claim(b, a));
  for (auto j = k + 1; j < improvements.size(); ++j)
    improvements[j](b);
  INFO("a = " << a.ShortDebugString() << ", b = " << b.ShortDebugString());
  CHECK(compare_claims(a, b) < 0);
  CHECK(compare_claims(b, a) > 0);
  std::vector<wire::Claim> claims{b, a};
  sort_claims(claims);
  CHECK(claims.front().ShortDebugString() == a.ShortDebugString());
}

bool same(const wire::Claim& a, const wire::Claim& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

int sign(int x) {
  return (x > 0) - (x < 0);
}

// Few values per field, so that random claims often tie on several criteria.
wire::Claim random_claim(std::mt19937_64& rng) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  wire::Claim c;
  c.set_node_id("n" + std::to_string(pick(3)));
  c.set_data_objects(pick(2));
  c.set_battery(pick(2) * 50);
  c.set_dequeue_time_ms(1000 + pick(2));
  c.set_device_class(pick(2));
  c.set_is_enqueuer(pick(2) == 1);
  return c;
}

} // namespace

TEST_CASE("each ranking criterion decides when the earlier ones tie and "
          "overrides every later one",
          "[ranking]") {
  SECTION("1: more data objects of the task first") {
    check_criterion_decides(0);
  }
  SECTION("2: higher battery level first") {
    check_criterion_decides(1);
  }
  SECTION("3: older dequeue timestamp first") {
    check_criterion_decides(2);
  }
  SECTION("4: lower device class first") {
    check_criterion_decides(3);
  }
  SECTION("5: the enqueuer first") {
    check_criterion_decides(4);
  }
  SECTION("6: node id ascending") {
    check_criterion_decides(5);
  }
}

TEST_CASE("node ids compare byte-wise", "[ranking]") {
  auto a = base_claim();
  auto b = base_claim();
  a.set_node_id("n10");
  b.set_node_id("n9");
  CHECK(better_claim(a, b));
}

TEST_CASE("the claim order is total, antisymmetric and transitive",
          "[ranking]") {
  auto seed = GENERATE(1u, 2u, 3u);
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<wire::Claim> claims;
  for (int i = 0; i < 40; ++i)
    claims.push_back(random_claim(rng));
  for (const auto& a : claims) {
    for (const auto& b : claims) {
      INFO(a.ShortDebugString() << " vs " << b.ShortDebugString());
      auto ab = compare_claims(a, b);
      REQUIRE(sign(ab) == -sign(compare_claims(b, a)));
      REQUIRE((ab == 0) == same(a, b));
      for (const auto& c : claims)
        if (ab <= 0 && compare_claims(b, c) <= 0)
          REQUIRE(compare_claims(a, c) <= 0);
    }
  }
}

TEST_CASE("every replica sorts the same claims to the same winner",
          "[ranking]") {
  std::uint64_t seed = 42;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<wire::Claim> claims;
  for (int i = 0; i < 12; ++i)
    claims.push_back(random_claim(rng));
  auto reference = claims;
  sort_claims(reference);
  for (std::size_t i = 1; i < reference.size(); ++i)
    CHECK(compare_claims(reference[i - 1], reference[i]) <= 0);
  for (int round = 0; round < 50; ++round) {
    auto shuffled = claims;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    sort_claims(shuffled);
    for (std::size_t i = 0; i < shuffled.size(); ++i)
      REQUIRE(same(shuffled[i], reference[i]));
  }
}

TEST_CASE("a node's claim carries its data objects, battery, class and "
          "enqueuer flag",
          "[ranking]") {
  wire::TaskSpec spec;
  spec.set_id("t1");
  spec.set_enqueuer("alpha");
  auto* d = spec.add_data_objects();
  d->set_node_id("beta");
  d->set_count(3);
  d = spec.add_data_objects();
  d->set_node_id("alpha");
  d->set_count(1);
  d = spec.add_data_objects();
  d->set_node_id("beta");
  d->set_count(2);
  wire::NodeInfo info;
  info.set_battery(80);
  info.set_device_class(4);
  info.set_slots(2);

  auto beta = make_claim("beta", info, spec, 1234);
  CHECK(beta.node_id() == "beta");
  CHECK(beta.data_objects() == 5);
  CHECK(beta.battery() == 80);
  CHECK(beta.device_class() == 4);
  CHECK(beta.dequeue_time_ms() == 1234);
  CHECK_FALSE(beta.is_enqueuer());

  auto alpha = make_claim("alpha", info, spec, 1234);
  CHECK(alpha.data_objects() == 1);
  CHECK(alpha.is_enqueuer());
  CHECK(make_claim("gamma", info, spec, 1234).data_objects() == 0);

  // More data objects outweigh being the enqueuer.
  CHECK(better_claim(beta, alpha));
}
