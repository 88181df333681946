#include "known_tasks/version_vector.hpp"

#include <algorithm>

namespace dice {

bool version_vector::observe(const std::string& origin, std::uint64_t seq) {
  if (seq == 0 || seen(origin, seq))
    return false;
  auto& hi = contiguous_[origin];
  if (seq == hi + 1) {
    hi = seq;
    absorb_gaps(origin);
  } else {
    beyond_gap_[origin].insert(seq);
  }
  return true;
}

bool version_vector::seen(const std::string& origin, std::uint64_t seq) const {
  if (seq <= get(origin))
    return true;
  auto i = beyond_gap_.find(origin);
  return i != beyond_gap_.end() && i->second.count(seq) > 0;
}

std::uint64_t version_vector::get(const std::string& origin) const {
  auto i = contiguous_.find(origin);
  return i == contiguous_.end() ? 0 : i->second;
}

void version_vector::absorb_gaps(const std::string& origin) {
  auto g = beyond_gap_.find(origin);
  if (g == beyond_gap_.end())
    return;
  auto& hi = contiguous_[origin];
  auto& gaps = g->second;
  while (!gaps.empty() && *gaps.begin() <= hi + 1) {
    hi = std::max(hi, *gaps.begin());
    gaps.erase(gaps.begin());
  }
  if (gaps.empty())
    beyond_gap_.erase(g);
}

void version_vector::raise_to(const version_vector& other) {
  for (const auto& [origin, seq] : other.contiguous_) {
    auto& hi = contiguous_[origin];
    if (seq > hi)
      hi = seq;
  }
  for (const auto& [origin, seqs] : other.beyond_gap_) {
    auto hi = get(origin);
    for (auto seq : seqs)
      if (seq > hi)
        beyond_gap_[origin].insert(seq);
  }
  for (const auto& [origin, seq] : other.contiguous_)
    absorb_gaps(origin);
  for (const auto& [origin, seqs] : other.beyond_gap_)
    if (contiguous_.count(origin))
      absorb_gaps(origin);
}

void version_vector::join(const version_vector& other) {
  raise_to(other);
}

bool version_vector::behind(const version_vector& other) const {
  // Past our contiguous prefix, seq hi+1 is unseen (it would have been
  // absorbed), so a longer prefix elsewhere always means we miss something.
  for (const auto& [origin, seq] : other.contiguous_)
    if (seq > get(origin))
      return true;
  for (const auto& [origin, seqs] : other.beyond_gap_)
    for (auto seq : seqs)
      if (!seen(origin, seq))
        return true;
  return false;
}

void version_vector::to_wire(
  google::protobuf::RepeatedPtrField<wire::VersionEntry>* out) const {
  for (const auto& [origin, seq] : contiguous_) {
    auto* e = out->Add();
    e->set_origin(origin);
    e->set_seq(seq);
    if (auto g = beyond_gap_.find(origin); g != beyond_gap_.end())
      for (auto s : g->second)
        e->add_beyond(s);
  }
}

version_vector version_vector::from_wire(
  const google::protobuf::RepeatedPtrField<wire::VersionEntry>& in) {
  version_vector v;
  for (const auto& e : in) {
    if (e.origin().empty())
      continue;
    auto& hi = v.contiguous_[e.origin()];
    hi = std::max(hi, e.seq());
    for (auto s : e.beyond())
      if (s > hi)
        v.beyond_gap_[e.origin()].insert(s);
  }
  for (auto& [origin, seq] : v.contiguous_)
    v.absorb_gaps(origin);
  return v;
}

} // namespace dice
