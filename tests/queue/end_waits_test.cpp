#include <catch2/catch.hpp>

#include "queue/end_waits.hpp"

using dice::end_waits;

TEST_CASE("every wait on a task that ends is answered once, others stay",
          "[end_waits]") {
  end_waits w;
  auto a = w.add("t1");
  auto b = w.add("t1");
  auto c = w.add("t2");
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(*a != *b);
  auto ended = w.take("t1");
  CHECK(ended == std::vector<end_waits::ticket>{*a, *b});
  CHECK(w.take("t1").empty()); // an end heard twice answers nobody again
  CHECK_FALSE(w.take(*a));     // nor does its time running out
  CHECK(w.size() == 1);
  CHECK(w.take(*c) == std::optional<std::string>{"t2"});
  CHECK(w.take("t2").empty());
  CHECK(w.size() == 0);
}

TEST_CASE("a wait whose time is up no longer waits for its task's end",
          "[end_waits]") {
  end_waits w;
  auto a = w.add("t1");
  auto b = w.add("t1");
  CHECK(w.take(*a) == std::optional<std::string>{"t1"});
  CHECK_FALSE(w.take(*a));
  CHECK(w.take("t1") == std::vector<end_waits::ticket>{*b});
}

TEST_CASE("waits beyond the limit are refused until one is taken",
          "[end_waits]") {
  end_waits w{2};
  auto a = w.add("t1");
  REQUIRE(w.add("t2"));
  CHECK_FALSE(w.add("t3"));
  REQUIRE(w.take(*a));
  CHECK(w.add("t3"));
}
