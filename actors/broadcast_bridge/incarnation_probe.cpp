#include "broadcast_bridge/incarnation_probe.hpp"

#include <algorithm>
#include <limits>

#include "common/endpoint.hpp"

namespace dice {

namespace {

/// "localhost:7400" and "127.0.0.1:7400" name one peer.
std::string canonical(const std::string& addr) {
  if (auto ep = parse_endpoint(addr))
    return ep->to_string();
  return addr;
}

bridge_identity unasserting(bridge_identity self) {
  self.incarnation = 0;
  return self;
}

} // namespace

incarnation_probe::incarnation_probe(incarnation_probe_config cfg, millis now)
  : cfg_(std::move(cfg)),
    bridge_(unasserting(cfg_.self), cfg_.keys, cfg_.limits),
    deadline_(now + std::max<millis>(cfg_.window_ms, 0)),
    group_due_(cfg_.group ? now : std::numeric_limits<millis>::max()) {
  for (const auto& p : cfg_.peers)
    ask(p, now);
}

void incarnation_probe::ask(const std::string& addr, millis now) {
  auto key = canonical(addr);
  if (key.empty() || key == canonical(cfg_.self.addr))
    return;
  targets_.try_emplace(std::move(key), target{now, false});
}

void incarnation_probe::answered(const std::string& addr) {
  if (auto it = targets_.find(canonical(addr)); it != targets_.end())
    it->second.answered = true;
}

std::vector<std::pair<std::string, std::string>>
incarnation_probe::due(millis now) {
  std::vector<std::pair<std::string, std::string>> out;
  if (done(now))
    return out;
  auto probe = [&] {
    wire::Message m;
    m.mutable_incarnation_probe()->set_nonce(cfg_.nonce);
    return bridge_.seal(std::move(m), now);
  };
  for (auto& [addr, t] : targets_) {
    if (t.answered || t.next_due > now)
      continue;
    t.next_due = now + std::max<millis>(cfg_.retry_ms, 1);
    if (auto bytes = probe()) {
      out.emplace_back(addr, std::move(*bytes));
      ++counters_.probes_sent;
    }
  }
  if (group_due_ <= now && !any_answer_) {
    group_due_ = now + std::max<millis>(cfg_.retry_ms, 1);
    if (auto bytes = probe()) {
      out.emplace_back(std::string{}, std::move(*bytes));
      ++counters_.probes_sent;
    }
  }
  return out;
}

void incarnation_probe::on_datagram(const datagram& d, millis now) {
  auto m = bridge_.open(d.bytes);
  if (!m) {
    ++counters_.datagrams_dropped;
    return;
  }
  if (!m->has_incarnation_notice()) {
    // A peer that still talks to this address (its heartbeats) has heard
    // the previous life: ask it too. A probe asks us nothing we know.
    if (!m->has_incarnation_probe())
      ask(m->sender_addr(), now);
    return;
  }
  const auto& notice = m->incarnation_notice();
  if (notice.id() != cfg_.self.node_id || notice.nonce() != cfg_.nonce) {
    ++counters_.notices_ignored;
    return;
  }
  ++counters_.notices_taken;
  any_answer_ = true;
  highest_ = std::max(highest_, notice.highest());
  answered(m->sender_addr());
  answered(d.from);
}

bool incarnation_probe::done(millis now) const {
  if (now >= deadline_)
    return true;
  if (!any_answer_)
    return false;
  return std::all_of(targets_.begin(), targets_.end(),
                     [](const auto& kv) { return kv.second.answered; });
}

millis incarnation_probe::next_wakeup() const {
  auto next = deadline_;
  for (const auto& [addr, t] : targets_)
    if (!t.answered)
      next = std::min(next, t.next_due);
  if (!any_answer_)
    next = std::min(next, group_due_);
  return next;
}

std::uint64_t incarnation_probe::incarnation() const {
  if (highest_ == std::numeric_limits<std::uint64_t>::max())
    return highest_;
  return std::max(cfg_.self.incarnation, highest_ + 1);
}

} // namespace dice
