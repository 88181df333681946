#include "mutex/mutex_node.hpp"

namespace dice {

mutex_node::mutex_node(const std::string& algorithm, std::string self_id,
                       mutex_config cfg, std::shared_ptr<lock_owners> owners,
                       millis idle_ms)
  : self_(self_id),
    algo_(make_mutex(algorithm, std::move(self_id), cfg)),
    owners_(std::move(owners)),
    idle_ms_(idle_ms),
    peers_(self_) {
}

void mutex_node::on_peer(const peer_change& c, millis now) {
  // live_peers shows a restart as a leave and a return: the algorithm drops
  // what the old incarnation held and asked for.
  if (peers_.apply(c, [&](const std::vector<std::string>& live) {
        algo_->on_view(live, now);
      }))
    after(now);
}

void mutex_node::on_coordinator(const std::string& c, millis now) {
  algo_->on_coordinator(c, now);
  after(now);
}

void mutex_node::on_wire(const wire::Message& m, millis now) {
  if (!m.has_mutex() || m.sender_id().empty() || m.sender_id() == self_) {
    ++malformed_;
    return;
  }
  algo_->on_message(m.sender_id(), m.mutex(), now);
  after(now);
}

void mutex_node::tick(millis now) {
  if (auto d = algo_->next_deadline(); d && *d <= now)
    algo_->tick(now);
  settle(now);
  after(now);
}

void mutex_node::settle(millis now) {
  auto a = owners_->settle(now, idle_ms_);
  for (const auto& r : a.release)
    algo_->release(r, now);
  for (const auto& r : a.request)
    algo_->request(r, now);
  for (auto& x : a.assigned)
    assigned_.push_back(std::move(x));
  // Task wants lapse after idle_ms: look again then.
  settle_at_ = owners_->rows().empty() ? std::nullopt
                                       : std::optional<millis>{now + idle_ms_ / 2};
}

void mutex_node::after(millis now) {
  bool changed = false;
  for (const auto& r : algo_->take_granted()) {
    ++granted_;
    owners_->granted(r);
    changed = true;
  }
  for (const auto& r : algo_->take_lost()) {
    ++lost_count_;
    auto who = owners_->lost(r);
    if (!who.empty())
      lost_.emplace_back(who, r);
    changed = true;
  }
  if (changed)
    settle(now);
  for (auto& s : algo_->take_outbox()) {
    mutex_datagram d;
    *d.message.mutable_mutex() = std::move(s.msg);
    if (!s.to.empty())
      d.to = std::move(s.to);
    out_.push_back(std::move(d));
  }
}

std::optional<millis> mutex_node::next_deadline() const {
  auto d = algo_->next_deadline();
  if (settle_at_ && (!d || *settle_at_ < *d))
    return settle_at_;
  return d;
}

std::vector<mutex_datagram> mutex_node::take_datagrams() {
  std::vector<mutex_datagram> out;
  out.swap(out_);
  return out;
}

std::vector<std::pair<std::string, std::string>> mutex_node::take_assigned() {
  std::vector<std::pair<std::string, std::string>> out;
  out.swap(assigned_);
  return out;
}

std::vector<std::pair<std::string, std::string>> mutex_node::take_lost() {
  std::vector<std::pair<std::string, std::string>> out;
  out.swap(lost_);
  return out;
}

locks_view mutex_node::view() const {
  locks_view v;
  v.algorithm = algo_->algorithm();
  v.cluster = algo_->locks();
  v.local = owners_->rows();
  v.granted = granted_;
  v.lost = lost_count_;
  v.ignored = algo_->ignored_messages();
  v.malformed = malformed_;
  return v;
}

} // namespace dice
