#include "vocabulary/version_vector.hpp"

#include <algorithm>
#include <iterator>

namespace dice {

namespace {

using entries_t = version_vector::contiguous_entries;

entries_t::const_iterator lower(const entries_t& v, const std::string& origin) {
  return std::lower_bound(
    v.begin(), v.end(), origin,
    [](const auto& e, const std::string& o) { return e.first < o; });
}

} // namespace

std::uint64_t& version_vector::slot(const std::string& origin) {
  auto i = contiguous_.begin() + (lower(contiguous_, origin) - contiguous_.cbegin());
  if (i == contiguous_.end() || i->first != origin)
    i = contiguous_.emplace(i, origin, 0);
  return i->second;
}

void version_vector::forget(const std::string& origin) {
  auto i = lower(contiguous_, origin);
  if (i != contiguous_.end() && i->first == origin)
    contiguous_.erase(i);
  beyond_gap_.erase(origin);
}

bool version_vector::observe(const std::string& origin, std::uint64_t seq) {
  if (seq == 0 || seen(origin, seq))
    return false;
  auto& hi = slot(origin);
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
  if (beyond_gap_.empty())
    return false;
  auto i = beyond_gap_.find(origin);
  return i != beyond_gap_.end() && i->second.count(seq) > 0;
}

std::uint64_t version_vector::get(const std::string& origin) const {
  auto i = lower(contiguous_, origin);
  return i == contiguous_.end() || i->first != origin ? 0 : i->second;
}

void version_vector::absorb_gaps(const std::string& origin) {
  auto g = beyond_gap_.find(origin);
  if (g == beyond_gap_.end())
    return;
  auto& hi = slot(origin);
  auto& gaps = g->second;
  while (!gaps.empty() && *gaps.begin() <= hi + 1) {
    hi = std::max(hi, *gaps.begin());
    gaps.erase(gaps.begin());
  }
  if (gaps.empty())
    beyond_gap_.erase(g);
}

version_vector version_vector::only(const std::string& origin) const {
  version_vector v;
  if (auto hi = get(origin); hi > 0)
    v.contiguous_.emplace_back(origin, hi);
  if (auto g = beyond_gap_.find(origin); g != beyond_gap_.end())
    v.beyond_gap_.insert(*g);
  return v;
}

void version_vector::raise_to(const version_vector& other) {
  if (other.contiguous_.size() * 8 < contiguous_.size()) {
    // A few entries (a partial heartbeat) into many: look each one up
    // rather than rebuild the whole vector.
    for (const auto& [origin, seq] : other.contiguous_) {
      auto& hi = slot(origin);
      hi = std::max(hi, seq);
    }
  } else {
    raise_all(other);
  }
  if (other.beyond_gap_.empty() && beyond_gap_.empty())
    return;
  absorb_beyond(other);
}

void version_vector::raise_all(const version_vector& other) {
  // Linear merge of the two sorted vectors.
  entries_t merged;
  merged.reserve(std::max(contiguous_.size(), other.contiguous_.size()));
  auto a = contiguous_.begin();
  auto b = other.contiguous_.begin();
  while (a != contiguous_.end() || b != other.contiguous_.end()) {
    if (b == other.contiguous_.end()
        || (a != contiguous_.end() && a->first < b->first)) {
      merged.push_back(std::move(*a++));
    } else if (a == contiguous_.end() || b->first < a->first) {
      merged.push_back(*b++);
    } else {
      merged.emplace_back(std::move(a->first), std::max(a->second, b->second));
      ++a;
      ++b;
    }
  }
  contiguous_ = std::move(merged);
}

void version_vector::absorb_beyond(const version_vector& other) {
  for (const auto& [origin, seqs] : other.beyond_gap_) {
    auto hi = get(origin);
    for (auto seq : seqs)
      if (seq > hi)
        beyond_gap_[origin].insert(seq);
  }
  // Raised prefixes may now reach ops seen beyond a gap.
  std::vector<std::string> origins;
  for (const auto& [origin, seqs] : beyond_gap_)
    origins.push_back(origin);
  for (const auto& origin : origins)
    if (auto i = lower(contiguous_, origin);
        i != contiguous_.end() && i->first == origin)
      absorb_gaps(origin);
}

void version_vector::join(const version_vector& other) {
  raise_to(other);
}

bool version_vector::behind(const version_vector& other) const {
  // Past our contiguous prefix, seq hi+1 is unseen (it would have been
  // absorbed), so a longer prefix elsewhere always means we miss something.
  auto a = contiguous_.begin();
  for (const auto& [origin, seq] : other.contiguous_) {
    while (a != contiguous_.end() && a->first < origin)
      ++a;
    auto mine = a != contiguous_.end() && a->first == origin ? a->second : 0;
    if (seq > mine)
      return true;
  }
  for (const auto& [origin, seqs] : other.beyond_gap_)
    for (auto seq : seqs)
      if (!seen(origin, seq))
        return true;
  return false;
}

namespace {

std::size_t varint_bytes(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    ++n;
  return n;
}

/// Consecutive seqs as (first, count) pairs, ascending.
std::vector<std::pair<std::uint64_t, std::uint64_t>>
runs_of(const std::set<std::uint64_t>& seqs) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  for (auto s : seqs)
    if (!runs.empty() && runs.back().first + runs.back().second == s)
      ++runs.back().second;
    else
      runs.emplace_back(s, 1);
  return runs;
}

} // namespace

void version_vector::to_wire(
  google::protobuf::RepeatedPtrField<wire::VersionEntry>* out,
  std::size_t beyond_bytes) const {
  out->Reserve(out->size() + static_cast<int>(contiguous_.size()));
  // Each origin with gaps gets an equal share of beyond_bytes.
  auto share = beyond_gap_.empty() ? 0 : beyond_bytes / beyond_gap_.size();
  for (const auto& [origin, seq] : contiguous_) {
    auto* e = out->Add();
    e->set_origin(origin);
    e->set_seq(seq);
    if (beyond_gap_.empty())
      continue;
    auto g = beyond_gap_.find(origin);
    if (g == beyond_gap_.end())
      continue;
    // The newest runs that fit, written in ascending order.
    auto runs = runs_of(g->second);
    auto first = runs.end();
    std::size_t used = 0;
    while (first != runs.begin()) {
      const auto& [from, count] = *std::prev(first);
      auto bytes = varint_bytes(from) + varint_bytes(count);
      if (used + bytes > share)
        break;
      used += bytes;
      --first;
    }
    for (auto r = first; r != runs.end(); ++r) {
      e->add_beyond_runs(r->first);
      e->add_beyond_runs(r->second);
    }
  }
}

version_vector version_vector::from_wire(
  const google::protobuf::RepeatedPtrField<wire::VersionEntry>& in) {
  version_vector v;
  v.contiguous_.reserve(static_cast<std::size_t>(in.size()));
  bool sorted = true;
  for (const auto& e : in) {
    if (e.origin().empty())
      continue;
    if (!v.contiguous_.empty() && !(v.contiguous_.back().first < e.origin()))
      sorted = false;
    v.contiguous_.emplace_back(e.origin(), e.seq());
  }
  if (!sorted) {
    // A peer's (or a hand-made) vector out of order or with repeats: keep the
    // highest seq per origin.
    std::sort(v.contiguous_.begin(), v.contiguous_.end());
    entries_t unique;
    for (auto& e : v.contiguous_)
      if (!unique.empty() && unique.back().first == e.first)
        unique.back().second = std::max(unique.back().second, e.second);
      else
        unique.push_back(std::move(e));
    v.contiguous_ = std::move(unique);
  }
  // A peer may list any numbers: at most read_beyond_limit are taken in.
  std::size_t room = read_beyond_limit;
  for (const auto& e : in) {
    if (e.origin().empty() || (e.beyond_size() == 0 && e.beyond_runs_size() == 0))
      continue;
    auto hi = v.get(e.origin());
    auto& gaps = v.beyond_gap_[e.origin()];
    auto take = [&](std::uint64_t s) {
      if (s > hi && room > 0 && gaps.insert(s).second)
        --room;
    };
    for (auto s : e.beyond())
      take(s);
    const auto& runs = e.beyond_runs();
    for (int i = 0; i + 1 < runs.size() && room > 0; i += 2) {
      auto from = std::max(runs[i], hi + 1);
      auto end = runs[i] + runs[i + 1]; // one past the run
      if (end < runs[i])
        end = UINT64_MAX; // a count that wraps around: as far as it goes
      for (auto s = from; s < end && room > 0; ++s)
        take(s);
    }
    if (gaps.empty())
      v.beyond_gap_.erase(e.origin());
  }
  std::vector<std::string> origins;
  for (const auto& [origin, seqs] : v.beyond_gap_)
    origins.push_back(origin);
  for (const auto& origin : origins)
    v.absorb_gaps(origin);
  return v;
}

} // namespace dice
