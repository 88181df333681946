#include "clocks/vector_clock.hpp"

namespace dice {

vector_clock::vector_clock(std::map<std::string, std::uint64_t> entries) {
  for (auto& [k, v] : entries)
    if (v > 0)
      v_.emplace(k, v);
}

std::uint64_t vector_clock::increment(const std::string& node) {
  return ++v_[node];
}

void vector_clock::merge(const vector_clock& other) {
  for (const auto& [k, v] : other.v_) {
    auto& mine = v_[k];
    if (v > mine)
      mine = v;
  }
}

std::uint64_t vector_clock::get(const std::string& node) const {
  auto it = v_.find(node);
  return it == v_.end() ? 0 : it->second;
}

void vector_clock::set(const std::string& node, std::uint64_t value) {
  if (value == 0)
    v_.erase(node);
  else
    v_[node] = value;
}

bool vector_clock::dominated_by(const vector_clock& other) const {
  for (const auto& [k, v] : v_)
    if (v > other.get(k))
      return false;
  return true;
}

causal_order vector_clock::compare(const vector_clock& other) const {
  bool le = dominated_by(other);
  bool ge = other.dominated_by(*this);
  if (le && ge)
    return causal_order::equal;
  if (le)
    return causal_order::before;
  if (ge)
    return causal_order::after;
  return causal_order::concurrent;
}

} // namespace dice
