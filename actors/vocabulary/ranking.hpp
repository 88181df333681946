#pragma once
// The paper's "Sorteio e Desempate" order on dequeue claims (DequeueInfo).
//
// A claim is better when, comparing criterion by criterion and stopping at
// the first that differs:
//   1. it holds more data objects of the task,
//   2. its battery level is higher,
//   3. its dequeue timestamp is older,
//   4. its device class is lower,
//   5. it comes from the task's enqueuer,
//   6. its node id is smaller (byte-wise, so "n10" < "n9").
// Every field of a Claim is a criterion, so the order is total: two claims
// compare equal only when they are the same claim. Every replica therefore
// picks the same winner from the same claims, whatever order they came in.
#include <cstdint>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// <0 if `a` wins over `b`, >0 if `b` wins, 0 only if all six criteria tie.
int compare_claims(const wire::Claim& a, const wire::Claim& b);

/// True if `a` wins over `b`.
inline bool better_claim(const wire::Claim& a, const wire::Claim& b) {
  return compare_claims(a, b) < 0;
}

/// Sorts winner first.
void sort_claims(std::vector<wire::Claim>& claims);

/// Data objects of the task that `spec` places on `node_id` (summed, should
/// the spec list the node more than once).
std::uint32_t data_objects_on(const wire::TaskSpec& spec,
                              const std::string& node_id);

/// The claim `node_id`, described by `info`, makes for the task at
/// `dequeue_time_ms`.
wire::Claim make_claim(const std::string& node_id, const wire::NodeInfo& info,
                       const wire::TaskSpec& spec, millis dequeue_time_ms);

} // namespace dice
