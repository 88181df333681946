#include "known_tasks/forgotten_set.hpp"

#include <algorithm>
#include <iterator>

namespace dice {

bool forgotten_set::contains(const std::string& origin, std::uint64_t n) const {
  auto o = by_origin_.find(origin);
  if (o == by_origin_.end())
    return false;
  auto r = o->second.upper_bound(n); // the first range starting after n
  if (r == o->second.begin())
    return false;
  --r;
  return n <= r->second;
}

bool forgotten_set::add(const std::string& origin, std::uint64_t first,
                        std::uint64_t last) {
  if (origin.empty() || first == 0 || last < first)
    return false;
  auto& ranges = by_origin_[origin];
  // Fold every range that overlaps or touches [first, last] into it.
  auto r = ranges.upper_bound(first);
  if (r != ranges.begin() && std::prev(r)->second + 1 >= first)
    --r;
  std::uint64_t covered = 0;
  while (r != ranges.end() && r->first <= last + 1 && last + 1 != 0) {
    first = std::min(first, r->first);
    auto end = std::max(last, r->second);
    covered += r->second - r->first + 1;
    last = end;
    r = ranges.erase(r);
  }
  ranges.emplace(first, last);
  auto now = last - first + 1;
  count_ += now - covered;
  return now > covered;
}

bool forgotten_set::merge(
  const google::protobuf::RepeatedPtrField<wire::ForgottenRange>& ranges) {
  bool news = false;
  for (const auto& r : ranges)
    news |= add(r.origin(), r.first(), r.last());
  return news;
}

std::vector<wire::ForgottenRange> forgotten_set::ranges() const {
  std::vector<wire::ForgottenRange> out;
  for (const auto& [origin, ranges] : by_origin_)
    for (const auto& [first, last] : ranges) {
      wire::ForgottenRange r;
      r.set_origin(origin);
      r.set_first(first);
      r.set_last(last);
      out.push_back(std::move(r));
    }
  return out;
}

wire::ForgottenRange range_of(const wire::OpId& created) {
  wire::ForgottenRange r;
  r.set_origin(created.origin());
  r.set_first(created.seq());
  r.set_last(created.seq());
  return r;
}

std::size_t forgotten_set::range_count() const {
  std::size_t n = 0;
  for (const auto& [origin, ranges] : by_origin_)
    n += ranges.size();
  return n;
}

} // namespace dice
