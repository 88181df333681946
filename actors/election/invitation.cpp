#include "election/invitation.hpp"

#include <algorithm>

namespace dice {

invitation_election::invitation_election(std::string self_id,
                                         election_config cfg)
  : election_state("invitation", std::move(self_id), std::move(cfg)) {
}

void invitation_election::on_view(std::vector<std::string> live_ids,
                                  millis now) {
  auto before = view_;
  if (!set_view(std::move(live_ids)) && state_ != "down")
    return;
  if (state_ == "down")
    return recovery(now);
  bool joined = std::any_of(view_.begin(), view_.end(), [&](auto& id) {
    return !std::binary_search(before.begin(), before.end(), id);
  });
  for (auto it = up_.begin(); it != up_.end();)
    it = is_live(*it) ? std::next(it) : up_.erase(it);
  if (coord_ && !is_live(*coord_))
    return recovery(now); // membership says the coordinator is gone
  if (joined && coord_ == self_ && check_at_)
    check_at_ = now; // a heal or a newcomer: look for coordinators now
}

void invitation_election::start_election(millis now) {
  recovery(now);
}

void invitation_election::recovery(millis now) {
  ++elections_started_;
  ++round_;
  coord_ = self_;
  group_counter_ = round_;
  group_ = self_ + ":" + std::to_string(round_);
  up_.clear();
  others_.clear();
  step_ = step::none;
  deadline_.reset();
  probe_at_.reset();
  merge_at_.reset();
  state_ = "normal";
  check_at_ = now;
}

bool invitation_election::newer_group(const std::string& coord,
                                      std::uint64_t counter) const {
  return coord != *coord_ || counter > group_counter_;
}

void invitation_election::merge(millis now) {
  if (coord_ != self_ || state_ != "normal" || step_ != step::none)
    return;
  state_ = "election";
  ++round_;
  group_counter_ = round_;
  group_ = self_ + ":" + std::to_string(round_);
  auto invite = others_;
  invite.insert(up_.begin(), up_.end());
  up_.clear();
  others_.clear();
  for (const auto& p : invite) {
    auto m = make("Invitation");
    m.set_candidate(self_);
    m.set_group(group_);
    m.set_counter(group_counter_);
    send(p, std::move(m));
  }
  step_ = step::merging;
  // Invitations to other groups are forwarded once: two hops, then Accept.
  deadline_ = now + 2 * cfg_.answer_timeout_ms;
}

void invitation_election::become_normal(millis now) {
  state_ = "normal";
  step_ = step::none;
  deadline_.reset();
  check_at_ = now + cfg_.check_interval_ms;
}

void invitation_election::reply(const std::string& to, const char* kind,
                                bool yes, const std::string& group) {
  auto m = make(kind);
  m.set_answer(yes);
  m.set_group(group);
  m.set_candidate(coord_.value_or(""));
  send(to, std::move(m));
}

void invitation_election::on_invitation(const std::string& from,
                                        const wire::Election& m, millis now) {
  if (state_ != "normal" || !newer_group(m.candidate(), m.counter()))
    return;
  auto old_coord = coord_;
  auto old_up = up_;
  coord_ = m.candidate();
  group_ = m.group();
  group_counter_ = m.counter();
  state_ = "election";
  up_.clear();
  others_.clear();
  merge_at_.reset();
  probe_at_.reset();
  if (old_coord == self_) // a coordinator brings its members along
    for (const auto& p : old_up)
      if (p != *coord_)
        send(p, m);
  auto a = make("Accept");
  a.set_group(group_);
  send(*coord_, std::move(a));
  step_ = step::accepting;
  deadline_ = now + 2 * cfg_.answer_timeout_ms;
}

void invitation_election::on_message(const std::string& from,
                                     const wire::Election& m, millis now) {
  if (foreign(m) || state_ == "down")
    return;
  const auto& k = m.kind();
  if (k == "AYCoordinator") {
    reply(from, "AYCAnswer", state_ == "normal" && coord_ == self_, group_);
  } else if (k == "AYCAnswer") {
    if (step_ != step::checking)
      return;
    if (m.answer())
      others_.insert(from);
    else if (!m.candidate().empty() && m.candidate() != self_)
      others_.insert(m.candidate()); // a member names its coordinator
  } else if (k == "AYThere") {
    bool yes = m.group() == group_ && coord_ == self_ && up_.count(from);
    reply(from, "AYTAnswer", yes, m.group());
  } else if (k == "AYTAnswer") {
    if (from != coord_ || m.group() != group_ || !probe_at_)
      return;
    probe_at_.reset();
    if (!m.answer())
      recovery(now); // no longer in that group
  } else if (k == "Invitation") {
    on_invitation(from, m, now);
  } else if (k == "Accept") {
    bool yes = step_ == step::merging && coord_ == self_ && group_ == m.group();
    if (yes)
      up_.insert(from);
    reply(from, "AcceptAnswer", yes, m.group());
  } else if (k == "AcceptAnswer") {
    if (step_ != step::accepting || from != coord_ || m.group() != group_)
      return;
    if (!m.answer())
      return recovery(now);
    state_ = "reorganizing";
    step_ = step::awaiting;
    deadline_ = now + 3 * cfg_.answer_timeout_ms;
  } else if (k == "Ready") {
    // Ready may overtake AcceptAnswer: it proves we were accepted.
    bool yes = group_ == m.group() && coord_ == from && from != self_;
    if (yes && state_ != "normal")
      become_normal(now);
    reply(from, "ReadyAnswer", yes, m.group());
  } else if (k == "ReadyAnswer") {
    if (step_ != step::readying || m.group() != group_ || !m.answer()
        || !up_.count(from))
      return;
    answers_.insert(from);
    if (answers_.size() == up_.size())
      become_normal(now);
  } else {
    ++ignored_;
  }
}

void invitation_election::tick(millis now) {
  if (probe_at_ && *probe_at_ <= now) { // AYThere unanswered
    probe_at_.reset();
    recovery(now);
  }
  if (deadline_ && *deadline_ <= now) {
    deadline_.reset();
    switch (step_) {
      case step::checking:
        step_ = step::none;
        if (!others_.empty() && coord_ == self_) {
          // Wait inversely to priority so the highest coordinator merges
          // first and two coordinators do not keep stealing members.
          auto n = static_cast<millis>(view_.size());
          auto rank = static_cast<millis>(
            std::lower_bound(view_.begin(), view_.end(), self_)
            - view_.begin());
          merge_at_ = now + cfg_.merge_delay_ms * (n - rank) / n;
        }
        break;
      case step::merging:
        state_ = "reorganizing";
        answers_.clear();
        step_ = step::readying;
        for (const auto& p : up_) {
          auto m = make("Ready");
          m.set_group(group_);
          send(p, std::move(m));
        }
        if (up_.empty())
          become_normal(now);
        else
          deadline_ = now + cfg_.answer_timeout_ms;
        break;
      case step::readying:
        // Members that did not confirm are dropped; AYThere tells them.
        up_ = answers_;
        become_normal(now);
        break;
      case step::accepting:
      case step::awaiting: recovery(now); break;
      case step::none: break;
    }
  }
  if (merge_at_ && *merge_at_ <= now) {
    merge_at_.reset();
    merge(now);
  }
  if (check_at_ && *check_at_ <= now) {
    check_at_ = now + cfg_.check_interval_ms;
    if (state_ != "normal" || step_ != step::none)
      return;
    if (coord_ == self_) { // Check_members: other coordinators about?
      if (merge_at_)
        return;
      others_.clear();
      for (const auto& p : view_)
        if (p != self_ && !up_.count(p)) {
          send(p, make("AYCoordinator"));
          step_ = step::checking;
        }
      if (step_ == step::checking)
        deadline_ = now + cfg_.answer_timeout_ms;
    } else { // Check_Coord
      auto m = make("AYThere");
      m.set_group(group_);
      send(*coord_, std::move(m));
      probe_at_ = now + cfg_.answer_timeout_ms;
    }
  }
}

} // namespace dice
