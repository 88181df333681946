#include "mutex/hold_census.hpp"

#include <algorithm>

namespace dice {

void hold_census::start(std::uint64_t epoch, const std::string& self,
                        const std::vector<std::string>& live,
                        std::vector<wire::MutexHold> own) {
  running_ = true;
  epoch_ = epoch;
  waiting_.clear();
  holds_.clear();
  for (const auto& id : live)
    if (id != self)
      waiting_.insert(id);
  for (auto& h : own)
    holds_.emplace(h.resource(), std::move(h));
}

void hold_census::on_answer(
  std::uint64_t epoch, const std::string& from,
  const google::protobuf::RepeatedPtrField<wire::MutexHold>& holds) {
  if (!running_ || epoch != epoch_ || waiting_.erase(from) == 0)
    return;
  for (const auto& h : holds)
    if (h.holder() == from)
      holds_.emplace(h.resource(), h);
}

void hold_census::on_view(const std::vector<std::string>& live) {
  for (auto it = waiting_.begin(); it != waiting_.end();)
    it = std::binary_search(live.begin(), live.end(), *it) ? std::next(it)
                                                           : waiting_.erase(it);
  for (auto it = holds_.begin(); it != holds_.end();)
    it = std::binary_search(live.begin(), live.end(), it->second.holder())
           ? std::next(it)
           : holds_.erase(it);
}

} // namespace dice
