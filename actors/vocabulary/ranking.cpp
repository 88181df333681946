#include "vocabulary/ranking.hpp"

#include <algorithm>

namespace dice {

namespace {

// -1 if x should come first, +1 if y should, 0 on a tie.
template <class T>
int first_if_less(const T& x, const T& y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

template <class T>
int first_if_greater(const T& x, const T& y) {
  return -first_if_less(x, y);
}

} // namespace

int compare_claims(const wire::Claim& a, const wire::Claim& b) {
  if (int c = first_if_greater(a.data_objects(), b.data_objects()))
    return c;
  if (int c = first_if_greater(a.battery(), b.battery()))
    return c;
  if (int c = first_if_less(a.dequeue_time_ms(), b.dequeue_time_ms()))
    return c;
  if (int c = first_if_less(a.device_class(), b.device_class()))
    return c;
  if (int c = first_if_greater(a.is_enqueuer(), b.is_enqueuer()))
    return c;
  return first_if_less(a.node_id(), b.node_id());
}

void sort_claims(std::vector<wire::Claim>& claims) {
  std::sort(claims.begin(), claims.end(), better_claim);
}

std::uint32_t data_objects_on(const wire::TaskSpec& spec,
                              const std::string& node_id) {
  std::uint64_t total = 0;
  for (const auto& d : spec.data_objects())
    if (d.node_id() == node_id)
      total += d.count();
  // Saturate: a hostile spec must not wrap a huge count into a small one.
  return static_cast<std::uint32_t>(
    std::min<std::uint64_t>(total, UINT32_MAX));
}

wire::Claim make_claim(const std::string& node_id, const wire::NodeInfo& info,
                       const wire::TaskSpec& spec, millis dequeue_time_ms) {
  wire::Claim claim;
  claim.set_node_id(node_id);
  claim.set_data_objects(data_objects_on(spec, node_id));
  claim.set_battery(info.battery());
  claim.set_dequeue_time_ms(dequeue_time_ms);
  claim.set_device_class(info.device_class());
  claim.set_is_enqueuer(spec.enqueuer() == node_id);
  return claim;
}

} // namespace dice
