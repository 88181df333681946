#pragma once
// Who hears what: handles of type H by owner (the subscribing actor's id)
// and topic, "" standing for every topic. The front actor keeps one for
// task events (topic "") and one for causal messages. Plain template (no
// CAF): the matching is tested with any handle type.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dice::embed {

template <class H>
class subscribers {
public:
  using owner = std::uint64_t;

  /// Subscribes `who` (owned by `by`) to `topic`; again replaces the handle.
  void add(owner by, const std::string& topic, H who) {
    subs_.insert_or_assign({by, topic}, std::move(who));
  }
  void remove(owner by, const std::string& topic) { subs_.erase({by, topic}); }
  /// `by` stopped: every subscription of it ends.
  void drop(owner by) {
    auto it = subs_.lower_bound({by, std::string{}});
    while (it != subs_.end() && it->first.first == by)
      it = subs_.erase(it);
  }
  /// Those who hear `topic`, each owner once (the first of its handles).
  std::vector<H> match(const std::string& topic) const {
    std::vector<H> out;
    std::set<owner> told;
    for (const auto& [key, who] : subs_)
      if ((key.second.empty() || key.second == topic) && told.insert(key.first).second)
        out.push_back(who);
    return out;
  }
  std::size_t size() const { return subs_.size(); }

private:
  std::map<std::pair<owner, std::string>, H> subs_;
};

} // namespace dice::embed
