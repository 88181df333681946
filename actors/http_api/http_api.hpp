#pragma once
// The node's HTTP API (cpp-httplib): JSON status now, task operations later.
// Handlers run on the server's threads and ask the actors, with a timeout,
// so a busy node answers 503 rather than hanging a client.
#include <atomic>
#include <memory>
#include <thread>

#include <caf/fwd.hpp>

#include "common/endpoint.hpp"
#include "node/node.hpp"

namespace httplib {
class Server;
}

namespace dice {

class http_api {
public:
  /// Binds at once; throws std::runtime_error if the port cannot be bound.
  http_api(caf::actor_system& sys, const node& n, endpoint where);
  ~http_api();

  void stop();
  std::uint64_t requests() const { return requests_; }
  std::uint64_t bad_requests() const { return bad_requests_; }

private:
  void routes();      // status: /health, /nodes, /stats
  void task_routes(); // the task API: /tasks...

  caf::actor_system& sys_;
  const node& node_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> bad_requests_{0};
};

} // namespace dice
