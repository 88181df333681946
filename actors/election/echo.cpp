#include "election/echo.hpp"

#include <algorithm>

namespace dice {

echo_election::echo_election(std::string self_id, election_config cfg)
  : election_state("echo", std::move(self_id), std::move(cfg)) {
}

std::vector<std::string> echo_election::neighbours() const {
  auto n = view_.size();
  auto r = cfg_.echo_radius;
  std::vector<std::string> out;
  if (r == 0 || 2 * r + 1 >= n) {
    for (const auto& id : view_)
      if (id != self_)
        out.push_back(id);
    return out;
  }
  // Radio range stand-in: the r nearest live ids on each side of the ring.
  for (int d = 1; d <= static_cast<int>(r); ++d) {
    out.push_back(neighbour(+d));
    out.push_back(neighbour(-d));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

wire::Election echo_election::tagged(const char* kind) const {
  auto m = make(kind);
  m.set_group(source_); // the instance is (round, source)
  return m;
}

void echo_election::on_view(std::vector<std::string> live_ids, millis now) {
  auto before = view_;
  if (!set_view(std::move(live_ids)) && state_ != "down")
    return;
  if (state_ == "down") {
    // Higher ids start first: at a cluster start, one flood instead of N
    // concurrent ones (each costs O(E)) usually covers everybody.
    auto below = static_cast<millis>(
      view_.end() - std::upper_bound(view_.begin(), view_.end(), self_));
    if (!deadline_)
      deadline_ = now + cfg_.answer_timeout_ms
                  + below * cfg_.hop_timeout_ms / 8;
    return;
  }
  bool joined = std::any_of(view_.begin(), view_.end(), [&](auto& id) {
    return !std::binary_search(before.begin(), before.end(), id);
  });
  if (participating_ && !parent_.empty() && !is_live(parent_)) {
    // Our report, or our subtree's, died with the parent: vote again.
    start_election(now);
  } else if (participating_) {
    // A dead neighbour will never answer: count it as answered.
    for (auto it = pending_.begin(); it != pending_.end();)
      it = is_live(*it) ? std::next(it) : pending_.erase(it);
    maybe_complete();
  } else if (coord_ && !is_live(*coord_)) {
    start_election(now);
  } else if (joined && coord_ == self_ && state_ == "normal") {
    start_election(now); // the newcomer may have more capacity
  }
}

void echo_election::start_election(millis now) {
  ++elections_started_;
  ++round_;
  join(self_, "", now);
}

void echo_election::join(const std::string& source, const std::string& parent,
                         millis now) {
  source_ = source;
  parent_ = parent;
  participating_ = true;
  reported_ = false;
  state_ = "election";
  coord_.reset();
  best_ = {cfg_.capacity, self_};
  deadline_ = now + ring_timeout();
  pending_.clear();
  for (const auto& p : neighbours())
    if (p != parent_) {
      pending_.insert(p);
      auto m = tagged("Election");
      send(p, std::move(m));
    }
  maybe_complete();
}

void echo_election::maybe_complete() {
  if (!participating_ || reported_ || !pending_.empty())
    return;
  if (parent_.empty()) { // the source: announce the best node to all
    participating_ = false;
    coord_ = best_.second;
    state_ = "normal";
    deadline_.reset();
    auto m = tagged("Leader");
    m.set_candidate(best_.second);
    m.set_capacity(best_.first);
    broadcast(std::move(m));
    return;
  }
  auto m = tagged("Ack");
  m.set_answer(true); // a report from a child
  m.set_candidate(best_.second);
  m.set_capacity(best_.first);
  send(parent_, std::move(m));
  reported_ = true;
}

void echo_election::on_message(const std::string& from,
                               const wire::Election& m, millis now) {
  if (foreign(m))
    return;
  auto theirs = std::make_pair(m.round(), m.group());
  auto ours = std::make_pair(round_, source_);
  if (m.kind() == "Election") {
    if (theirs > ours) {
      round_ = m.round();
      return join(m.group(), from, now);
    }
    if (theirs == ours) {
      if (from == parent_)
        return; // a duplicate
      auto a = tagged("Ack"); // we already have a parent
      a.set_answer(false);
      return send(from, std::move(a));
    }
    ++ignored_;
    // An older instance from its own source: that source is behind us.
    if (m.round() < round_ && m.group() == from && !participating_)
      start_election(now);
  } else if (m.kind() == "Ack") {
    if (theirs != ours || !participating_ || !pending_.erase(from))
      return;
    if (m.answer())
      best_ = std::max(best_, rank{m.capacity(), m.candidate()});
    maybe_complete();
  } else if (m.kind() == "Leader") {
    if (theirs < ours)
      return;
    round_ = m.round();
    source_ = m.group();
    participating_ = false;
    pending_.clear();
    coord_ = m.candidate();
    state_ = "normal";
    deadline_.reset();
    // The winner died while we voted, or the vote missed us and we are better.
    if (!is_live(*coord_)
        || rank{m.capacity(), m.candidate()} < rank{cfg_.capacity, self_})
      start_election(now);
  } else {
    ++ignored_;
  }
}

void echo_election::tick(millis now) {
  if (deadline_ && *deadline_ <= now) {
    deadline_.reset();
    start_election(now);
  }
}

} // namespace dice
