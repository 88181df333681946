#include <catch2/catch.hpp>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "queue/queue_routes.hpp"

using namespace dice;

namespace {

// What each station was handed: the task id it saw, and whether it was
// handed the event to keep (moved) rather than a copy to take.
struct recording_sink {
  struct delivery {
    station to;
    std::string task_id;
    bool moved;
    bool operator==(const delivery& o) const {
      return to == o.to && task_id == o.task_id;
    }
  };
  std::vector<delivery> got;

  template <station S, class E>
  void deliver(E&& e) {
    std::string id;
    if constexpr (std::is_same_v<std::decay_t<E>, ev::task_changed>)
      id = e.task_id;
    got.push_back({S, id, std::is_rvalue_reference_v<E&&>});
    std::decay_t<E> taken(std::forward<E>(e)); // as a mailbox takes it
  }
};

} // namespace

TEST_CASE("an event routed out reaches every station that takes it whole, in "
          "the stations' order, and only the last one gets it moved",
          "[queue_routes]") {
  ev::event change = ev::task_changed{"t1", nullptr, wire::TaskState{}};
  recording_sink copied;
  route(change, copied);
  recording_sink out;
  route_out(change, out);
  // A change of state goes to subsystems and to the user.
  REQUIRE(out.got.size() >= 2);
  CHECK(out.got == copied.got); // the same stations in the same order
  for (std::size_t i = 0; i < out.got.size(); ++i) {
    CAPTURE(i);
    CHECK(out.got[i].task_id == "t1"); // none saw a moved-from event
    CHECK(out.got[i].moved == (i + 1 == out.got.size()));
  }
  for (const auto& d : copied.got)
    CHECK_FALSE(d.moved);
}

TEST_CASE("an event that one station alone takes is moved to it",
          "[queue_routes]") {
  ev::event datagram = ev::broadcast{wire::Message{}, 0};
  recording_sink out;
  route_out(datagram, out);
  REQUIRE(out.got.size() == 1);
  CHECK(out.got[0].to == station::bridge);
  CHECK(out.got[0].moved);
}
