#pragma once
// What a queue_node asks its surroundings to do: messages to broadcast or
// send to one node, executions to start or cancel, and news for the user.
#include <cstdint>
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

struct queue_send {
  std::string to; // node id
  wire::Message message;
};

struct execution_order {
  std::string task_id;
  /// The executor reports this attempt back in execution_finished().
  std::uint32_t attempt = 0;
  wire::TaskSpec spec; // empty in cancel orders
};

struct queue_outbox {
  std::vector<wire::Message> broadcasts;
  std::vector<queue_send> sends;
  std::vector<execution_order> start;
  std::vector<execution_order> cancel;
  /// Submitted tasks now held by another replica (or no other node is alive).
  std::vector<std::string> acknowledged;
  /// Tasks whose merged state changed on this replica (task events).
  std::vector<std::string> changed;

  bool empty() const {
    return broadcasts.empty() && sends.empty() && start.empty()
           && cancel.empty() && acknowledged.empty() && changed.empty();
  }
};

} // namespace dice
