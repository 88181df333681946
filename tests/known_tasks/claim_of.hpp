#pragma once
// A claim of `node` dated `dequeue_time`, for the known_tasks tests.
#include <string>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice::test {

inline wire::Claim claim_of(const std::string& node, millis dequeue_time) {
  wire::Claim c;
  c.set_node_id(node);
  c.set_dequeue_time_ms(dequeue_time);
  return c;
}

} // namespace dice::test
