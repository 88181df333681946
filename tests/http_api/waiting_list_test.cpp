// The waiting room's rules without sockets or threads: a connection is
// handed over once its request is whole, an idle one is closed after the
// idle timeout, a slow one after the request timeout from its first byte.
#include <catch2/catch.hpp>

#include "http_api/waiting_list.hpp"

using namespace dice;
using namespace std::chrono_literals;

namespace {

const waiting_list::limits limits{5000ms, 2000ms, framing_limits{1024, 4096}};
const waiting_list::time_point t0{};

} // namespace

TEST_CASE("a request trickled a byte at a time is handed over whole, once",
          "[http][waiting]") {
  waiting_list list(limits);
  list.add(7, t0);
  const std::string get = "GET /health HTTP/1.1\r\n\r\n";
  for (std::size_t i = 0; i + 1 < get.size(); ++i)
    CHECK_FALSE(list.receive(7, get.substr(i, 1), t0 + 10ms * i));
  auto r = list.receive(7, get.substr(get.size() - 1), t0 + 1s);
  REQUIRE(r);
  CHECK(r->bytes == get);
  CHECK(r->started == t0); // its deadline runs from the first byte
  CHECK_FALSE(list.contains(7));
  CHECK_FALSE(list.next_deadline());
}

TEST_CASE("silence ends a connection at the idle timeout, a slow request at "
          "the request timeout",
          "[http][waiting]") {
  waiting_list list(limits);
  list.add(1, t0);             // sends nothing
  list.add(2, t0);             // starts a request at 1 s, never ends it
  list.add(3, t0 + 100ms, "GET / HT"); // back from a thread with a partial request
  CHECK_FALSE(list.receive(2, "GET / HTTP/1.1\r\n", t0 + 1s));
  CHECK(*list.next_deadline() == t0 + 2100ms);
  CHECK(list.expire(t0 + 2099ms).empty());
  auto first = list.expire(t0 + 2100ms);
  REQUIRE(first.size() == 1);
  CHECK(first[0] == std::pair{3, waiting_list::close_reason::timed_out});
  auto second = list.expire(t0 + 3s);
  REQUIRE(second.size() == 1);
  CHECK(second[0] == std::pair{2, waiting_list::close_reason::timed_out});
  CHECK(list.expire(t0 + 4999ms).empty());
  auto idle = list.expire(t0 + 5s);
  REQUIRE(idle.size() == 1);
  CHECK(idle[0] == std::pair{1, waiting_list::close_reason::idle});
  CHECK(list.size() == 0);
}

TEST_CASE("the longest waiting connection makes room, and a reused "
          "descriptor starts afresh",
          "[http][waiting]") {
  waiting_list list(limits);
  list.add(4, t0 + 2s);
  list.add(5, t0 + 1s);
  list.add(6, t0 + 3s);
  CHECK(list.oldest() == 5);
  list.remove(5);
  CHECK(list.oldest() == 4);
  CHECK_FALSE(list.receive(4, "GET", t0 + 3s));
  list.add(4, t0 + 4s); // closed, and the number given to a new connection
  CHECK(list.oldest() == 6);
  CHECK(*list.next_deadline() == t0 + 8s); // 6's idle timeout; 4 idle again
  CHECK_FALSE(list.receive(9, "GET / HTTP/1.1\r\n\r\n", t0)); // not waiting here
}
