#include <catch2/catch.hpp>

#include "clocks/lamport_clock.hpp"
#include "clocks/vector_clock.hpp"

using namespace dice;

TEST_CASE("a Lamport clock ticks before each event and jumps past what it receives",
          "[clocks]") {
  lamport_clock p, q;
  auto sent = p.tick();      // p sends at 1
  CHECK(sent == 1);
  q.tick();
  q.tick();                  // q is at 2
  q.observe(sent);           // an older timestamp does not move it back
  CHECK(q.now() == 2);
  auto reply = q.tick();     // q's answer is stamped after the request
  CHECK(reply > sent);
  p.observe(reply);
  CHECK(p.tick() > reply);   // p's next event follows the answer
}

TEST_CASE("vector clocks order the seed's example: m before m*, m* after m",
          "[clocks]") {
  // P0 sends m at (1,0,0); P1 receives it, then sends m*.
  vector_clock p0, p1, p2;
  p0.increment("P0");
  auto m = p0;
  p1.merge(m);
  p1.increment("P1");
  auto m_star = p1;
  CHECK(m.happened_before(m_star));
  CHECK(m.compare(m_star) == causal_order::before);
  CHECK(m_star.compare(m) == causal_order::after);
  // P2's own event, knowing nothing of either, is concurrent with both.
  p2.increment("P2");
  CHECK(p2.compare(m) == causal_order::concurrent);
  CHECK(p2.compare(m_star) == causal_order::concurrent);
  CHECK_FALSE(p2.happened_before(m));
  CHECK(m.compare(m) == causal_order::equal);
}

TEST_CASE("merging vector clocks takes the entry-wise maximum and is a "
          "join: commutative, associative, idempotent", "[clocks]") {
  vector_clock a{{{"x", 3}, {"y", 1}}};
  vector_clock b{{{"y", 4}, {"z", 2}}};
  vector_clock c{{{"x", 1}, {"z", 5}}};
  auto ab = a;
  ab.merge(b);
  CHECK(ab.get("x") == 3);
  CHECK(ab.get("y") == 4);
  CHECK(ab.get("z") == 2);
  CHECK(ab.get("w") == 0);
  auto ba = b;
  ba.merge(a);
  CHECK(ab == ba);
  auto ab_c = ab;
  ab_c.merge(c);
  auto bc = b;
  bc.merge(c);
  auto a_bc = a;
  a_bc.merge(bc);
  CHECK(ab_c == a_bc);
  auto again = ab_c;
  again.merge(ab_c);
  CHECK(again == ab_c);
  CHECK(a.dominated_by(ab));
  CHECK_FALSE(ab.dominated_by(a));
}

TEST_CASE("zero entries are absent, so a clock equals one that never saw the "
          "node", "[clocks]") {
  vector_clock a;
  a.set("x", 0);
  CHECK(a == vector_clock{});
  CHECK(a.entries().empty());
  vector_clock b{{{"x", 0}, {"y", 2}}};
  CHECK(b.entries().size() == 1);
}
