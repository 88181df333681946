// Replay protection outlives a restart, with real processes: datagrams sent
// to a node before the whole cluster stopped, replayed at it once it runs
// again, are dropped (its replay floors are in its data dir), and no
// finished task runs again.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

sockaddr_in loopback_addr(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/// A UDP relay on 127.0.0.1:`port` that forwards every datagram to `to`
/// and keeps a copy while recording: what an eavesdropper on the path
/// would capture.
class recording_relay {
public:
  recording_relay(std::uint16_t port, std::uint16_t to) : to_(loopback_addr(to)) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    auto a = loopback_addr(port);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("relay: cannot bind");
    thread_ = std::thread([this] { run(); });
  }
  ~recording_relay() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  void stop_recording() { recording_ = false; }
  std::vector<std::string> captured() {
    std::lock_guard<std::mutex> lock(mu_);
    return captured_;
  }

private:
  void run() {
    std::string buf(65536, '\0');
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0)
        continue;
      auto n = ::recv(fd_, buf.data(), buf.size(), 0);
      if (n <= 0)
        continue;
      if (recording_) {
        std::lock_guard<std::mutex> lock(mu_);
        captured_.emplace_back(buf.data(), static_cast<std::size_t>(n));
      }
      ::sendto(fd_, buf.data(), static_cast<std::size_t>(n), 0,
               reinterpret_cast<const sockaddr*>(&to_), sizeof to_);
    }
  }

  sockaddr_in to_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<bool> recording_{true};
  std::mutex mu_;
  std::vector<std::string> captured_;
  std::thread thread_;
};

/// Sends `datagrams` in chunks; after each, `taken(sent)` waits until the
/// node has read what was sent so far, so that a busy machine does not
/// overflow the node's socket buffer (the kernel would drop the rest
/// uncounted).
void send_all(std::uint16_t port, const std::vector<std::string>& datagrams,
              const std::function<void(std::size_t)>& taken) {
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE(fd >= 0);
  auto to = loopback_addr(port);
  std::size_t sent = 0;
  for (const auto& d : datagrams) {
    ::sendto(fd, d.data(), d.size(), 0, reinterpret_cast<const sockaddr*>(&to),
             sizeof to);
    if (++sent % 32 == 0 || sent == datagrams.size())
      taken(sent);
  }
  ::close(fd);
}

std::uint64_t wire_count(const node_process& n, const std::string& key) {
  auto s = n.stats();
  REQUIRE(s);
  return (*s)["wire"].value(key, std::uint64_t{0});
}

std::uint64_t dropped_as(const node_process& n, const std::string& reason) {
  auto s = n.stats();
  REQUIRE(s);
  return (*s)["wire"]["dropped_by_reason"].value(reason, std::uint64_t{0});
}

} // namespace

TEST_CASE("datagrams captured before the whole cluster stopped, replayed at "
          "a restarted node, are dropped and run nothing again",
          "[process][replay]") {
  cluster c;
  auto specs = seeded_specs(c, {"rp-1", "rp-2", "rp-3"});
  // rp-2 is reached through the relay: everything its peers send it is
  // captured.
  auto relay_port = free_port(true);
  specs[1].extra_args = {"--advertise", loopback(relay_port)};
  recording_relay relay(relay_port, specs[1].udp_port);
  for (auto& spec : specs)
    c.start(spec);
  REQUIRE(wait_until([&] { return c[0].alive_count() == 3
                                  && c[1].alive_count() == 3; },
                     millis(5000)));
  process cli(DICE_CLI_BIN,
              {"--node", "http://" + loopback(specs[0].http_port), "--json",
               "submit", "echo", "once", "--count", "20", "--wait",
               "--timeout", "30"},
              c.dir().file("submit.log"));
  auto code = cli.wait_exit(millis(60000));
  INFO("dice submit:\n" << cli.log() << "\n" << c.logs());
  REQUIRE(code);
  REQUIRE(*code == 0);
  REQUIRE(wait_until([&] {
    auto s = c[1].stats();
    return s && (*s)["tasks"].value("done", 0) == 20;
  }, millis(10000)));

  // Its peers stop first: what was captured, rp-2 has taken in.
  c[0].proc().stop();
  c[2].proc().stop();
  std::this_thread::sleep_for(millis(500));
  relay.stop_recording();
  c[1].proc().stop();
  auto captured = relay.captured();
  // Heartbeats and the tasks' messages; how few datagrams carry the tasks
  // depends on how much a node bundles (claims ahead share datagrams).
  INFO(captured.size() << " datagrams captured");
  REQUIRE(captured.size() > 8);

  cluster after;
  auto& rp2 = after.start(specs[1]);
  auto accepted_before = wire_count(rp2, "accepted");
  auto refused = [&] {
    return dropped_as(rp2, "replayed") + dropped_as(rp2, "stale_incarnation");
  };
  auto refused_before = refused();
  INFO("captured " << captured.size() << " datagrams");
  send_all(specs[1].udp_port, captured, [&](std::size_t sent) {
    wait_until([&] { return refused() - refused_before >= sent; },
               millis(2000));
  });
  CHECK(wait_until([&] { return refused() - refused_before >= captured.size(); },
                   millis(5000)));
  CHECK(wire_count(rp2, "accepted") == accepted_before);

  // The rest of the cluster comes back: every task stays done, none runs.
  after.start(specs[0]);
  after.start(specs[2]);
  REQUIRE(wait_until([&] { return after[0].alive_count() == 3
                                  && after[1].alive_count() == 3; },
                     millis(5000)));
  std::this_thread::sleep_for(millis(1500));
  for (auto& n : after.nodes()) {
    INFO("node " << n->id() << "\n" << after.logs());
    auto s = n->stats();
    REQUIRE(s);
    CHECK((*s)["tasks"].value("done", 0) == 20);
    CHECK((*s)["executions"].value("started", 0) == 0);
  }
}
