#include "election/election_node.hpp"

#include <stdexcept>

namespace dice {

election_node::election_node(const std::string& algorithm, std::string self_id,
                             election_config cfg)
  : self_(self_id), algo_(make_election(algorithm, std::move(self_id), cfg)),
    peers_(self_) {
}

void election_node::on_peer(const peer_change& c, millis now) {
  if (c.id.empty() || c.id == self_)
    return;
  // live_peers shows a restart as a leave and a return: the old
  // incarnation's part in an election is lost.
  bool changed = peers_.apply(c, [&](const std::vector<std::string>&) { feed_view(now); });
  if (!changed && first_)
    feed_view(now);
}

void election_node::feed_view(millis now) {
  first_ = false;
  algo_->on_view(peers_.ids(), now);
  after(now);
}

void election_node::on_wire(const wire::Message& m, millis now) {
  if (!m.has_election() || m.sender_id().empty() || m.sender_id() == self_) {
    ++malformed_;
    return;
  }
  // Nodes of one cluster must run one algorithm; one that runs another
  // would never agree with us. Its messages are dropped, counted, and the
  // peer named once, so the operator sees why the cluster has two leaders.
  const auto& theirs = m.election().algorithm();
  if (theirs != algo_->algorithm()) {
    ++other_algorithm_;
    auto& known = mismatched_[m.sender_id()];
    if (known != theirs) {
      known = theirs;
      new_mismatches_.push_back({m.sender_id(), theirs});
    }
    return;
  }
  algo_->on_message(m.sender_id(), m.election(), now);
  after(now);
}

void election_node::tick(millis now) {
  if (first_) // no peer yet: elect ourselves rather than wait for one
    feed_view(now);
  algo_->tick(now);
  after(now);
}

void election_node::after(millis) {
  for (auto& s : algo_->take_outbox()) {
    election_datagram d;
    *d.message.mutable_election() = std::move(s.msg);
    if (!s.to.empty())
      d.to = std::move(s.to);
    out_.push_back(std::move(d));
  }
}

std::vector<election_datagram> election_node::take_datagrams() {
  std::vector<election_datagram> out;
  out.swap(out_);
  return out;
}

std::string election_node::acting_coordinator() const {
  if (algo_->state() != "normal")
    return {};
  return algo_->coordinator().value_or("");
}

std::optional<std::string> election_node::take_coordinator_change() {
  auto now = acting_coordinator();
  if (now == announced_)
    return std::nullopt;
  announced_ = now;
  return now;
}

election_view election_node::view() const {
  election_view v;
  v.algorithm = algo_->algorithm();
  v.coordinator = algo_->coordinator();
  v.state = algo_->state();
  v.group = algo_->group();
  v.members = algo_->members();
  v.elections_started = algo_->elections_started();
  v.ignored = algo_->ignored_messages();
  v.malformed = malformed_;
  v.other_algorithm = other_algorithm_;
  v.mismatched = mismatched_;
  return v;
}

std::vector<algorithm_mismatch> election_node::take_mismatches() {
  std::vector<algorithm_mismatch> out;
  out.swap(new_mismatches_);
  return out;
}

} // namespace dice
