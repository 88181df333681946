// The UDP transport on real loopback sockets (no dice-node processes).
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broadcast_bridge/udp_transport.hpp"

namespace dice {

namespace {

/// Records what the receive thread hands over, call by call.
struct recorder {
  std::mutex mtx;
  std::condition_variable cv;
  std::vector<std::size_t> calls; // datagrams per call
  std::vector<datagram> got;

  void operator()(std::vector<datagram> batch) {
    std::lock_guard<std::mutex> guard{mtx};
    calls.push_back(batch.size());
    for (auto& d : batch)
      got.push_back(std::move(d));
    cv.notify_all();
  }

  bool wait_for(std::size_t n) {
    std::unique_lock<std::mutex> guard{mtx};
    return cv.wait_for(guard, std::chrono::seconds(5),
                       [&] { return got.size() >= n; });
  }
};

udp_options loopback() {
  udp_options o;
  o.listen = endpoint{"127.0.0.1", 0};
  return o;
}

} // namespace

TEST_CASE("udp_transport hands a queued burst over in one call, in order",
          "[bridge][udp]") {
  udp_transport receiver{loopback()};
  udp_transport sender{loopback()};
  auto to = receiver.local().to_string();
  // Sent before the receiver runs: all of them wait in the socket buffer.
  constexpr std::size_t burst = 20;
  for (std::size_t i = 0; i < burst; ++i)
    REQUIRE(sender.send_to(to, "datagram " + std::to_string(i)));
  recorder rec;
  receiver.start([&rec](std::vector<datagram> b) { rec(std::move(b)); });
  REQUIRE(rec.wait_for(burst));
  receiver.stop();
  std::lock_guard<std::mutex> guard{rec.mtx};
  CHECK(rec.calls == std::vector<std::size_t>{burst});
  REQUIRE(rec.got.size() == burst);
  for (std::size_t i = 0; i < burst; ++i) {
    CHECK(rec.got[i].bytes == "datagram " + std::to_string(i));
    CHECK(rec.got[i].from == sender.local().to_string());
  }
}

TEST_CASE("udp_transport bounds a call by max_batch and loses nothing",
          "[bridge][udp]") {
  auto opts = loopback();
  opts.max_batch = 8;
  udp_transport receiver{opts};
  udp_transport sender{loopback()};
  constexpr std::size_t burst = 30;
  for (std::size_t i = 0; i < burst; ++i)
    REQUIRE(sender.send_to(receiver.local().to_string(), std::to_string(i)));
  recorder rec;
  receiver.start([&rec](std::vector<datagram> b) { rec(std::move(b)); });
  REQUIRE(rec.wait_for(burst));
  receiver.stop();
  std::lock_guard<std::mutex> guard{rec.mtx};
  CHECK(rec.calls == std::vector<std::size_t>{8, 8, 8, 6});
  for (std::size_t i = 0; i < burst; ++i)
    CHECK(rec.got[i].bytes == std::to_string(i));
}

TEST_CASE("udp_transport broadcast_all sends every datagram to every "
          "target, in order, and counts per datagram",
          "[bridge][udp]") {
  udp_transport a{loopback()}, b{loopback()};
  udp_transport sender{loopback()};
  std::vector<std::string> datagrams{"one", "two", std::string(1200, 'x')};
  // Not an address: skipped, so each datagram reaches the two others.
  std::vector<std::string> targets{a.local().to_string(), "no-port",
                                   b.local().to_string()};
  CHECK(sender.broadcast_all(targets, datagrams)
        == std::vector<std::size_t>{2, 2, 2});
  CHECK(sender.broadcast_all(targets, {}).empty());
  for (auto* r : {&a, &b}) {
    recorder rec;
    r->start([&rec](std::vector<datagram> got) { rec(std::move(got)); });
    REQUIRE(rec.wait_for(datagrams.size()));
    r->stop();
    std::lock_guard<std::mutex> guard{rec.mtx};
    REQUIRE(rec.got.size() == datagrams.size());
    for (std::size_t i = 0; i < datagrams.size(); ++i)
      CHECK(rec.got[i].bytes == datagrams[i]);
  }
}

} // namespace dice
