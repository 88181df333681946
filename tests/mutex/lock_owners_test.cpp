// The node's side of cluster-wide locks: which local owner (a task attempt,
// a `dice lock` client) uses a lock the node holds, and what the node asks
// of the cluster or gives back.
#include <catch2/catch.hpp>

#include "http_api/lock_json.hpp"
#include "mutex/lock_name.hpp"
#include "mutex/lock_owners.hpp"

using namespace dice;

TEST_CASE("a task takes all its locks at once, or waits for the first "
          "missing one in name order", "[mutex][owners]") {
  lock_owners o;
  int wakes = 0;
  o.on_want([&] { ++wakes; });
  auto t1 = task_owner("t1", 1);
  CHECK_FALSE(o.try_take(t1, {"b", "a"}, 0));
  CHECK(wakes == 1);
  auto a = o.settle(0, 1000);
  CHECK(a.request == std::vector<std::string>{"a"}); // "b" only after "a"
  o.granted("a");
  CHECK_FALSE(o.try_take(t1, {"b", "a"}, 10));
  a = o.settle(10, 1000);
  CHECK(a.request == std::vector<std::string>{"b"});
  CHECK(a.release.empty()); // "a" is kept while the task waits for "b"
  o.granted("b");
  CHECK(o.try_take(t1, {"a", "b"}, 20));
  CHECK(o.owns(t1, "a"));
  CHECK(o.owns(t1, "b"));
  // Another task of this node cannot have them meanwhile.
  CHECK_FALSE(o.try_take(task_owner("t2", 1), {"a"}, 20));
  // The task ends: both go back to the cluster, then "a" is asked again
  // for the waiting task.
  o.drop(t1);
  a = o.settle(30, 1000);
  CHECK(a.release == std::vector<std::string>{"a", "b"});
  CHECK(a.request == std::vector<std::string>{"a"});
}

TEST_CASE("a lock nobody here waits for any more is given back",
          "[mutex][owners]") {
  lock_owners o;
  CHECK_FALSE(o.try_take(task_owner("t", 1), {"db"}, 0));
  CHECK(o.settle(0, 1000).request == std::vector<std::string>{"db"});
  o.granted("db");
  // The task went elsewhere: its want lapses after the idle time.
  CHECK(o.settle(500, 1000).release.empty());
  CHECK(o.settle(1001, 1000).release == std::vector<std::string>{"db"});
  CHECK(o.rows().empty());
}

TEST_CASE("dice lock clients are served in order, and a lost lock names "
          "its owner", "[mutex][owners]") {
  lock_owners o;
  o.wait("c1", "db");
  o.wait("c2", "db");
  CHECK(o.settle(0, 1000).request == std::vector<std::string>{"db"});
  o.granted("db");
  auto a = o.settle(1, 1000);
  REQUIRE(a.assigned.size() == 1);
  CHECK(a.assigned[0].first == "c1");
  CHECK(o.lost("db") == "c1");
  CHECK_FALSE(o.owns("c1", "db"));
}

TEST_CASE("lock names and lock requests: bad input gets a clear error",
          "[mutex][http]") {
  CHECK(lock_name_problem("db-1/main.v2:x_y") == "");
  CHECK(lock_name_problem("") == "a lock name must not be empty");
  CHECK(lock_name_problem("a b").find("may hold only") != std::string::npos);
  CHECK(lock_name_problem(std::string(65, 'x')).find("longer than 64") != std::string::npos);
  CHECK(lock_list_problem(std::vector<std::string>(17, "x")).find("at most 16")
        != std::string::npos);
  std::string err;
  auto r = parse_lock_request("", err);
  REQUIRE(r);
  CHECK(r->token.empty());
  r = parse_lock_request(R"({"token": "lock-1", "wait_ms": 0, "lease_ms": 5000})", err);
  REQUIRE(r);
  CHECK(r->token == "lock-1");
  CHECK(r->wait_ms == 0);
  CHECK(r->lease_ms == 5000);
  CHECK_FALSE(parse_lock_request(R"({"wait_ms": 20000})", err));
  CHECK(err == "'wait_ms' must be an integer from 0 to 10000");
  CHECK_FALSE(parse_lock_request(R"({"lease_ms": 10})", err));
  CHECK_FALSE(parse_lock_request(R"({"x": 1})", err));
  CHECK(err == "unknown field 'x'");
  CHECK_FALSE(parse_lock_request("[1]", err));
}
