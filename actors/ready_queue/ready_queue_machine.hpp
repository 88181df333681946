#pragma once
// The ready_queue subsystem: the tasks waiting to run, in this node's walk
// order, and the claim stagger. When ranking has free slots it asks for
// tasks; the queue offers those whose turn has come for this node. Among
// `idle` nodes each waits its rendezvous rank times claim_stagger_ms for a
// task, so the first claim is usually heard before anyone else claims.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "queue_node/queue_config.hpp"
#include "queue_node/queue_events.hpp"
#include "ready_queue/ready_queue.hpp"

namespace dice {

class ready_queue_machine {
public:
  ready_queue_machine(std::string id, queue_config cfg);

  void on(const ev::task_changed& e, millis now, ev::events& out);
  void on(const ev::live_nodes& e, millis now, ev::events& out);
  void on(const ev::want_tasks& e, millis now, ev::events& out);

  const ready_queue& order() const { return ready_; }

private:
  struct ready_task {
    std::shared_ptr<const wire::TaskSpec> spec;
    std::uint32_t attempt = 0;
    millis since = 0; // when the attempt became ready here
  };
  // The ready task this node may claim now, skipping `skip`.
  std::optional<std::string> next_claim(millis now, millis free_since,
                                        const std::set<std::string>& skip) const;
  // Live nodes, this one included, not known to be executing.
  std::size_t idle_nodes() const;

  std::string id_;
  queue_config cfg_;
  ready_queue ready_;
  std::map<std::string, ready_task> tasks_;
  std::size_t live_ = 1;
  // Who runs each running task, and how many each node runs (others only).
  std::map<std::string, std::string> runner_;
  std::map<std::string, std::size_t> per_node_;
};

} // namespace dice
