#include "election/hs.hpp"

#include <algorithm>

namespace dice {

namespace {
constexpr std::uint32_t max_phase = 31; // 2^31 hops: more than any ring
}

hs_election::hs_election(std::string self_id, election_config cfg)
  : election_state("hs", std::move(self_id), std::move(cfg)) {
}

std::string hs_election::next(std::uint32_t direction) const {
  return neighbour(direction == 0 ? +1 : -1);
}

void hs_election::on_view(std::vector<std::string> live_ids, millis now) {
  auto before = view_;
  if (!set_view(std::move(live_ids)) && state_ != "down")
    return;
  if (state_ == "down") {
    if (!deadline_)
      deadline_ = now + cfg_.answer_timeout_ms;
    return;
  }
  bool joined = std::any_of(view_.begin(), view_.end(), [&](auto& id) {
    return !std::binary_search(before.begin(), before.end(), id);
  });
  bool involved = role_ == role::candidate || role_ == role::lost;
  if (coord_ && !is_live(*coord_) && !involved)
    start_election(now);
  else if (joined && coord_ == self_ && state_ == "normal")
    start_election(now);
}

void hs_election::start_election(millis now) {
  ++elections_started_;
  ++round_;
  candidacy(now);
}

// The seed's Election(): candidate from phase 0.
void hs_election::candidacy(millis now) {
  role_ = role::candidate;
  state_ = "election";
  coord_.reset();
  phase_ = 0;
  deadline_ = now + ring_timeout();
  if (view_.size() == 1)
    return declare();
  send_probes();
}

void hs_election::send_probes() {
  replies_ = 0;
  remain_ = true;
  for (std::uint32_t dir : {0u, 1u}) {
    auto m = make("Cand");
    m.set_candidate(self_);
    m.set_phase(phase_);
    m.set_distance(0);
    m.set_direction(dir);
    send(next(dir), std::move(m));
  }
}

void hs_election::declare() {
  role_ = role::elected;
  coord_ = self_;
  state_ = "normal";
  deadline_.reset();
  announced_ = round_;
  auto m = make("Elected");
  m.set_candidate(self_);
  send(next(0), std::move(m));
}

void hs_election::on_cand(const std::string& from, const wire::Election& m,
                          millis now) {
  const auto& id = m.candidate();
  if ((announced_ == round_ || !is_live(id)) && id != self_) {
    // The round is decided (with reordering a probe can trail Elected), or
    // the candidate died: its probe must not circle forever.
    ++ignored_;
    return;
  }
  if (id < self_) {
    auto r = make("Resp");
    r.set_answer(false);
    r.set_candidate(id);
    r.set_phase(m.phase());
    r.set_direction(1 - m.direction());
    send(from, std::move(r));
    if (role_ == role::not_involved)
      candidacy(now);
  } else if (id > self_) {
    role_ = role::lost;
    state_ = "election";
    coord_.reset();
    deadline_ = now + ring_timeout();
    auto d = m.distance() + 1;
    if (d < (1u << std::min(m.phase(), max_phase))) {
      auto f = m;
      f.set_distance(d);
      send(next(m.direction()), std::move(f));
    } else {
      auto r = make("Resp");
      r.set_answer(true);
      r.set_candidate(id);
      r.set_phase(m.phase());
      r.set_direction(1 - m.direction());
      send(from, std::move(r));
    }
  } else if (role_ != role::elected) { // our Cand went all the way round
    declare();
  }
}

void hs_election::on_resp(const wire::Election& m) {
  if (m.candidate() != self_) {
    // Not ours: pass it on towards the candidate, unless the candidate is
    // gone (it would circle forever) or it went further than any probe.
    if (!is_live(m.candidate()) || m.distance() > 2 * view_.size()) {
      ++ignored_;
      return;
    }
    auto f = m;
    f.set_distance(m.distance() + 1);
    return send(next(m.direction()), std::move(f));
  }
  if (role_ != role::candidate || m.phase() != phase_)
    return;
  replies_ |= 1u << (m.direction() & 1u);
  remain_ = remain_ && m.answer();
  if (replies_ != 3u)
    return;
  if (!remain_) {
    role_ = role::lost;
  } else if (phase_ < max_phase) {
    ++phase_;
    send_probes();
  }
}

void hs_election::on_message(const std::string& from, const wire::Election& m,
                             millis now) {
  if (foreign(m))
    return;
  if (m.round() < round_) {
    ++ignored_;
    bool involved = role_ == role::candidate || role_ == role::lost;
    if (m.kind() == "Cand" && m.candidate() == from && m.distance() == 0
        && !involved)
      start_election(now); // the initiator is behind: a new instance reaches it
    return;
  }
  if (m.round() > round_) {
    round_ = m.round();
    role_ = role::not_involved;
  }
  if (m.kind() == "Cand") {
    on_cand(from, m, now);
  } else if (m.kind() == "Resp") {
    on_resp(m);
  } else if (m.kind() == "Elected") {
    if (adopt_elected(m.candidate(), now)) {
      role_ = role::not_involved;
      send(next(0), m);
    }
  } else {
    ++ignored_;
  }
}

void hs_election::tick(millis now) {
  restart_when_due(now);
}

} // namespace dice
