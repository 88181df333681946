#include "election/bully.hpp"

#include <algorithm>

namespace dice {

bully_election::bully_election(std::string self_id, election_config cfg)
  : election_state("bully", std::move(self_id), std::move(cfg)) {
}

bool bully_election::running() const {
  return step_ == step::ay_up || step_ == step::enter_election
         || step_ == step::set_coord || step_ == step::new_state;
}

void bully_election::on_view(std::vector<std::string> live_ids, millis now) {
  auto before = view_;
  if (!set_view(std::move(live_ids)) && state_ != "down")
    return;
  if (state_ == "down") { // Recovery(): back from a failure
    if (!running())
      start_election(now);
    return;
  }
  bool joined = std::any_of(view_.begin(), view_.end(), [&](auto& id) {
    return !std::binary_search(before.begin(), before.end(), id);
  });
  for (auto it = up_.begin(); it != up_.end();)
    it = is_live(*it) ? std::next(it) : up_.erase(it);
  if (coord_ && !is_live(*coord_)) {
    if (!running())
      start_election(now);
  } else if (joined && coord_ == self_) {
    // A new member must learn the coordinator, and may outrank it.
    if (state_ == "normal")
      start_election(now);
    else
      members_changed_ = true;
  }
}

void bully_election::start_election(millis now) {
  ++elections_started_;
  ++round_;
  members_changed_ = false;
  step_ = step::ay_up;
  bool higher = false;
  for (const auto& id : view_)
    if (id > self_) {
      send(id, make("AYUp"));
      higher = true;
    }
  if (!higher)
    return begin_enter(now);
  deadline_ = now + cfg_.answer_timeout_ms;
}

void bully_election::begin_enter(millis now) {
  state_ = "election";
  halted_ = self_;
  up_.clear();
  step_ = step::enter_election;
  asked_ = 0;
  for (const auto& id : view_)
    if (id < self_) {
      send(id, make("EnterElection"));
      ++asked_;
    }
  if (asked_ == 0)
    return finish_enter(now);
  deadline_ = now + cfg_.answer_timeout_ms;
}

void bully_election::finish_enter(millis now) {
  coord_ = self_;
  state_ = "reorganizing";
  answers_.clear();
  if (up_.empty())
    return become_normal(now);
  step_ = step::set_coord;
  for (const auto& id : up_) {
    auto m = make("SetCoord");
    m.set_candidate(self_);
    send(id, std::move(m));
  }
  deadline_ = now + cfg_.answer_timeout_ms;
}

void bully_election::begin_new_state(millis now) {
  answers_.clear();
  step_ = step::new_state;
  for (const auto& id : up_) {
    auto m = make("NewState");
    m.set_candidate(self_);
    m.mutable_members()->Add(up_.begin(), up_.end());
    send(id, std::move(m));
  }
  deadline_ = now + cfg_.answer_timeout_ms;
}

void bully_election::become_normal(millis now) {
  state_ = "normal";
  step_ = step::none;
  deadline_.reset();
  probe_at_.reset();
  check_at_ = now + cfg_.check_interval_ms;
  if (members_changed_ && coord_ == self_)
    start_election(now);
}

void bully_election::answer(const std::string& to, const wire::Election& req,
                            const char* kind, bool yes) {
  auto m = make(kind);
  m.set_round(req.round()); // lets the asker drop answers to older rounds
  m.set_answer(yes);
  m.set_candidate(coord_.value_or(""));
  m.set_phase(state_ == "normal" ? 1 : 0);
  send(to, std::move(m));
}

void bully_election::on_message(const std::string& from,
                                const wire::Election& m, millis now) {
  if (foreign(m))
    return;
  const auto& k = m.kind();
  bool mine = m.round() == round_; // an answer to our current request
  if (k == "AYUp") {
    answer(from, m, "AYUAnswer", true);
    // A lower node outside our group is electing (or probing another
    // coordinator): take it in now rather than at the next Check_members.
    if (state_ == "normal" && coord_ == self_ && !running() && from < self_
        && up_.count(from) == 0)
      start_election(now);
  } else if (k == "AYUAnswer") {
    if (coord_ == from)
      probe_at_.reset();
    if (step_ == step::ay_up && mine && from > self_) {
      // A higher node is up: it takes over; retry if it never does.
      step_ = step::wait_higher;
      deadline_ = now + 6 * cfg_.answer_timeout_ms;
    }
  } else if (k == "AYNormal") {
    answer(from, m, "AYNAnswer", true);
  } else if (k == "AYNAnswer") {
    // A member not in our Normal group: a new or recovering process.
    if (state_ == "normal" && coord_ == self_ && !running()
        && (m.phase() != 1 || m.candidate() != self_))
      start_election(now);
  } else if (k == "EnterElection") {
    if (from < self_) {
      // A lower node thinks it is the highest: bully it ourselves.
      if (!running())
        start_election(now);
      return;
    }
    state_ = "election";
    step_ = step::follow;
    halted_ = from;
    probe_at_.reset();
    deadline_ = now + 4 * cfg_.answer_timeout_ms;
    answer(from, m, "EEAnswer", true);
  } else if (k == "EEAnswer") {
    if (step_ == step::enter_election && mine) {
      up_.insert(from);
      if (up_.size() == asked_) // everyone answered: no need to wait out T
        finish_enter(now);
    }
  } else if (k == "SetCoord") {
    bool ok = state_ == "election" && halted_ == from;
    if (ok) {
      coord_ = from;
      state_ = "reorganizing";
      deadline_ = now + 4 * cfg_.answer_timeout_ms;
    }
    answer(from, m, "SCAnswer", ok);
  } else if (k == "SCAnswer") {
    if (step_ == step::set_coord && mine && m.answer() && up_.count(from)) {
      answers_.insert(from);
      if (answers_.size() == up_.size())
        begin_new_state(now);
    }
  } else if (k == "NewState") {
    bool ok = coord_ == from && (state_ == "reorganizing" || state_ == "normal");
    if (ok && state_ == "reorganizing")
      become_normal(now);
    answer(from, m, "NSAnswer", ok);
  } else if (k == "NSAnswer") {
    if (step_ == step::new_state && mine && m.answer() && up_.count(from)) {
      answers_.insert(from);
      if (answers_.size() == up_.size())
        become_normal(now);
    }
  } else {
    ++ignored_;
  }
}

void bully_election::tick(millis now) {
  if (probe_at_ && *probe_at_ <= now) { // Check_Coordinator: no AYU_answer
    probe_at_.reset();
    if (!running())
      start_election(now);
  }
  if (deadline_ && *deadline_ <= now) {
    deadline_.reset();
    switch (step_) {
      case step::ay_up: begin_enter(now); break;
      case step::enter_election: finish_enter(now); break;
      // Some member did not answer: the set of participants changed.
      case step::set_coord:
      case step::new_state:
      case step::wait_higher:
      case step::follow: start_election(now); break;
      case step::none: break;
    }
  }
  if (check_at_ && *check_at_ <= now) {
    check_at_ = now + cfg_.check_interval_ms;
    if (state_ != "normal" || running())
      return;
    if (coord_ == self_) { // Check_members
      for (const auto& id : view_)
        send(id, make("AYNormal"));
    } else if (coord_) { // Check_Coordinator
      send(*coord_, make("AYUp"));
      probe_at_ = now + cfg_.answer_timeout_ms;
    }
  }
}

} // namespace dice
