#include "membership/heartbeat_versions.hpp"

#include <algorithm>
#include <stdexcept>

namespace dice {

namespace {

bool same(const wire::VersionEntry& a, const wire::VersionEntry& b) {
  return a.seq() == b.seq() && a.beyond_size() == b.beyond_size()
         && std::equal(a.beyond().begin(), a.beyond().end(), b.beyond().begin())
         && a.beyond_runs_size() == b.beyond_runs_size()
         && std::equal(a.beyond_runs().begin(), a.beyond_runs().end(),
                       b.beyond_runs().begin());
}

} // namespace

heartbeat_versions::heartbeat_versions(heartbeat_versions_config cfg)
  : cfg_(cfg) {
  if (cfg_.full_every == 0 || cfg_.span == 0)
    throw std::invalid_argument("heartbeat versions: full_every and span must be positive");
}

void heartbeat_versions::next(const entries& current, wire::Heartbeat* hb) {
  hb->clear_versions();
  hb->set_versions_partial(false);
  bool full = sent_++ % cfg_.full_every == 0 || history_.size() < cfg_.span
              || whole_next_;
  whole_next_ = false;
  if (!full) {
    // Both lists are sorted by origin (version_vector::to_wire); an entry
    // is left out only when the same origin's entry there equals it, so a
    // list out of order costs bytes, never a change unsaid.
    const auto& before = history_.front();
    auto b = before.begin();
    for (const auto& e : current) {
      while (b != before.end() && b->origin() < e.origin())
        ++b;
      if (b == before.end() || b->origin() != e.origin() || !same(*b, e))
        *hb->add_versions() = e;
    }
    // No saving: send it whole, which also resets what peers hold.
    if (hb->versions_size() * 2 > current.size())
      full = true;
    else
      hb->set_versions_partial(true);
  }
  if (full)
    *hb->mutable_versions() = current;
  history_.push_back(current);
  while (history_.size() > cfg_.span)
    history_.pop_front();
}

} // namespace dice
