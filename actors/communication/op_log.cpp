#include "communication/op_log.hpp"

#include "vocabulary/queue_messages.hpp"

namespace dice {

op_log::op_log(std::size_t limit) : limit_(limit == 0 ? 1 : limit) {
}

void op_log::add(const std::string& origin, std::uint64_t seq,
                 wire::Message op) {
  auto [i, added] = ops_[origin].emplace(seq, std::move(op));
  if (!added)
    return;
  ++size_;
  arrival_.emplace_back(origin, seq);
  while (size_ > limit_ && !arrival_.empty()) {
    auto [o, s] = arrival_.front();
    arrival_.pop_front();
    auto per = ops_.find(o);
    if (per != ops_.end() && per->second.erase(s) > 0) {
      --size_;
      ++evicted_;
      if (per->second.empty())
        ops_.erase(per);
    }
  }
}

void op_log::drop_tasks(const std::set<std::string>& task_ids) {
  for (auto per = ops_.begin(); per != ops_.end();) {
    auto& ops = per->second;
    for (auto op = ops.begin(); op != ops.end();)
      if (task_ids.count(task_id_of(op->second)) > 0) {
        op = ops.erase(op);
        --size_;
      } else {
        ++op;
      }
    per = ops.empty() ? ops_.erase(per) : std::next(per);
  }
}

void op_log::compact(
  const std::function<std::uint64_t(const std::string&)>& floor) {
  for (auto per = ops_.begin(); per != ops_.end();) {
    auto upto = floor(per->first);
    auto& ops = per->second;
    while (!ops.empty() && ops.begin()->first <= upto) {
      ops.erase(ops.begin());
      --size_;
    }
    per = ops.empty() ? ops_.erase(per) : std::next(per);
  }
  // Forget arrival entries of compacted ops so the deque stays bounded too.
  while (!arrival_.empty()) {
    auto& [o, s] = arrival_.front();
    auto per = ops_.find(o);
    if (per != ops_.end() && per->second.count(s) > 0)
      break;
    arrival_.pop_front();
  }
  if (arrival_.size() > 2 * limit_ + 64) {
    std::deque<std::pair<std::string, std::uint64_t>> kept;
    for (auto& e : arrival_) {
      auto per = ops_.find(e.first);
      if (per != ops_.end() && per->second.count(e.second) > 0)
        kept.push_back(e);
    }
    arrival_.swap(kept);
  }
}

std::optional<std::vector<wire::Message>>
op_log::missing(const version_vector& have, const version_vector& mine,
                std::size_t max_ops) const {
  std::vector<wire::Message> result;
  bool full = false;
  // False when an op `have` lacks is no longer in the log.
  auto take = [&](const std::string& origin, std::uint64_t seq) {
    if (have.seen(origin, seq))
      return true;
    auto per = ops_.find(origin);
    if (per == ops_.end())
      return false;
    auto op = per->second.find(seq);
    if (op == per->second.end())
      return false;
    if (result.size() == max_ops)
      full = true; // the peer asks again for the rest
    else
      result.push_back(op->second);
    return true;
  };
  for (const auto& [origin, hi] : mine.entries()) {
    for (auto seq = have.get(origin) + 1; seq <= hi && !full; ++seq)
      if (!take(origin, seq))
        return std::nullopt;
  }
  for (const auto& [origin, seqs] : mine.beyond_gaps())
    for (auto seq : seqs) {
      if (full)
        return result;
      if (!take(origin, seq))
        return std::nullopt;
    }
  return result;
}

} // namespace dice
