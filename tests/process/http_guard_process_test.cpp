// The HTTP API against clients that hold connections without finishing a
// request (issue 17, item 8): slow clients are cut, idle ones wait without
// a server thread, and neither keeps /health from answering.
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

/// A TCP connection to 127.0.0.1:port, opened without waiting for the
/// handshake (a burst opens many at once); closed on destruction.
class raw_connection {
public:
  explicit raw_connection(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd_ < 0)
      return;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons(port);
    ::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  }
  ~raw_connection() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  raw_connection(const raw_connection&) = delete;
  raw_connection& operator=(const raw_connection&) = delete;

  bool ok() const { return fd_ >= 0; }
  /// Sends `bytes` if the socket takes them now; false once the peer has
  /// closed or reset the connection (or it never opened).
  bool send(const std::string& bytes) {
    if (fd_ < 0)
      return false;
    auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    return n >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN
           || errno == EINPROGRESS;
  }
  /// True once the peer has closed its side (a read returns end of file or
  /// an error), looking for up to `wait`.
  bool closed_by_peer(millis wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0)
      return false;
    char buf[512];
    for (;;) {
      auto n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
        return true;
      if (n < 0)
        return false; // nothing more yet: still open
    }
  }

private:
  int fd_ = -1;
};

/// Slow clients that never finish their request: `count` connections to
/// `port`, each sent the next byte of `request` once per `period`, from
/// a thread, until `done` or `bytes` rounds (bounded either way).
class trickling_clients {
public:
  trickling_clients(std::uint16_t port, int count, std::string request,
                    std::size_t bytes, millis period)
    : request_(std::move(request)) {
    for (int i = 0; i < count; ++i)
      conns_.push_back(std::make_unique<raw_connection>(port));
    thread_ = std::thread([this, bytes, period] {
      for (std::size_t b = 0; b < bytes && b < request_.size() && !done_; ++b) {
        for (auto& c : conns_)
          c->send(request_.substr(b, 1));
        for (millis slept{0}; slept < period && !done_; slept += millis(50))
          std::this_thread::sleep_for(millis(50));
      }
    });
  }
  ~trickling_clients() { stop(); }
  void stop() {
    done_ = true;
    if (thread_.joinable())
      thread_.join();
  }
  bool all_opened() const {
    for (const auto& c : conns_)
      if (!c->ok())
        return false;
    return true;
  }
  std::vector<std::unique_ptr<raw_connection>>& connections() { return conns_; }

private:
  std::string request_;
  std::vector<std::unique_ptr<raw_connection>> conns_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

std::uint64_t http_counter(const node_process& n, const char* name) {
  auto s = n.stats();
  return s ? (*s)["http"].value(name, std::uint64_t{0}) : 0;
}

} // namespace

TEST_CASE("eight clients sending a byte a second neither starve the API "
          "nor keep their connections",
          "[process][http]") {
  cluster c;
  auto spec = c.make_spec("slow-1");
  spec.extra_args = {"--http-request-timeout-ms", "2000"};
  auto& n = c.start(spec);

  // Each sends a request a byte at a time, never finishing it; httplib
  // waited up to 5 s for each next byte, with one thread per connection.
  const std::string request = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "
                              + std::string(200, 'a');
  // Bounded: at most 60 bytes each, one round per 500 ms.
  trickling_clients slow(n.spec().http_port, 8, request, 60, millis(500));

  // While they trickle, the API answers.
  std::this_thread::sleep_for(millis(1000));
  auto health = http_get(n.spec().http_port, "/health", millis(3000));
  auto stats = http_get(n.spec().http_port, "/stats", millis(3000));
  // And the node cuts each of them once its request is overdue.
  std::size_t cut = 0;
  for (auto& s : slow.connections())
    cut += s->closed_by_peer(millis(8000)) ? 1 : 0;
  slow.stop();
  INFO(c.logs());
  CHECK(health.status == 200);
  CHECK(stats.status == 200);
  CHECK(cut == slow.connections().size());
  CHECK(http_counter(n, "requests_timed_out") >= slow.connections().size());
}

TEST_CASE("a hundred clients trickling requests hold none of two server "
          "threads: /health and POST /tasks answer meanwhile",
          "[process][http]") {
  cluster c;
  auto spec = c.make_spec("trickle-1");
  // Two threads: if a slow client held one while its request arrived, two
  // of them would take the whole API until their request timeout.
  spec.extra_args = {"--http-threads", "2", "--http-request-timeout-ms", "20000"};
  auto& n = c.start(spec);

  const std::string request = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "
                              + std::string(200, 'a');
  // Bounded: at most 30 bytes each, one round per 200 ms.
  trickling_clients slow(n.spec().http_port, 100, request, 30, millis(200));
  REQUIRE(slow.all_opened());
  std::this_thread::sleep_for(millis(1000)); // every one has begun

  auto health = http_get(n.spec().http_port, "/health", millis(3000));
  httplib::Client cli("127.0.0.1", n.spec().http_port);
  cli.set_read_timeout(3);
  auto submit = cli.Post("/tasks", R"({"kind":"echo","payload":"x"})", "application/json");
  auto stats = n.stats();
  slow.stop();
  INFO(c.logs());
  CHECK(health.status == 200);
  REQUIRE(submit);
  CHECK((submit->status == 201 || submit->status == 202));
  REQUIRE(stats);
  // None was cut: they wait for the rest of their request, without a thread.
  CHECK((*stats)["http"]["requests_timed_out"].get<std::uint64_t>() == 0);
  CHECK((*stats)["http"]["connections_open"].get<std::uint64_t>() >= slow.connections().size());
}

TEST_CASE("a burst of 1000 idle connections leaves /health answering",
          "[process][http]") {
  cluster c;
  auto spec = c.make_spec("burst-1");
  // Fewer places than connections: the oldest idle ones make room.
  spec.extra_args = {"--http-max-connections", "500"};
  auto& n = c.start(spec);
  auto before = n.stats();
  REQUIRE(before);

  std::vector<std::unique_ptr<raw_connection>> burst;
  for (int i = 0; i < 1000; ++i) {
    burst.push_back(std::make_unique<raw_connection>(n.spec().http_port));
    REQUIRE(burst.back()->ok());
  }
  // httplib gave each a thread for its 5 s keep-alive wait, eight at a
  // time, behind a listen backlog of 5.
  auto health = http_get(n.spec().http_port, "/health", millis(3000));
  auto stats = n.stats();
  INFO(c.logs());
  CHECK(health.status == 200);
  REQUIRE(stats);
  CHECK((*stats)["http"]["connections_evicted"].get<std::uint64_t>() > 0);
  CHECK((*stats)["http"]["connections_open"].get<std::uint64_t>() <= 500);
  // They are all still idle: the only requests were /health and /stats.
  CHECK((*stats)["http"]["requests"].get<std::uint64_t>()
        == (*before)["http"]["requests"].get<std::uint64_t>() + 2);
}
