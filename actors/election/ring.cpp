#include "election/ring.hpp"

#include <algorithm>

namespace dice {

ring_election::ring_election(std::string self_id, election_config cfg)
  : election_state("ring", std::move(self_id), std::move(cfg)) {
}

void ring_election::on_view(std::vector<std::string> live_ids, millis now) {
  auto before = view_;
  if (!set_view(std::move(live_ids)) && state_ != "down")
    return;
  if (state_ == "down") {
    // Give a running cluster the chance to tell us the coordinator first.
    if (!deadline_)
      deadline_ = now + cfg_.answer_timeout_ms;
    return;
  }
  bool joined = std::any_of(view_.begin(), view_.end(), [&](auto& id) {
    return !std::binary_search(before.begin(), before.end(), id);
  });
  if (coord_ && !is_live(*coord_) && !participant_)
    start_election(now);
  else if (joined && coord_ == self_ && state_ == "normal")
    start_election(now); // the newcomer may outrank us, and must learn
}

void ring_election::start_election(millis now) {
  ++elections_started_;
  ++round_;
  participate(now);
  if (view_.size() == 1)
    return declare();
  forward_election(self_);
}

void ring_election::participate(millis now) {
  participant_ = true;
  state_ = "election";
  coord_.reset();
  deadline_ = now + ring_timeout();
}

void ring_election::forward_election(const std::string& candidate) {
  auto m = make("Election");
  m.set_candidate(candidate);
  send(neighbour(+1), std::move(m));
}

void ring_election::declare() {
  coord_ = self_;
  state_ = "normal";
  participant_ = false;
  deadline_.reset();
  announced_ = round_;
  auto m = make("Elected");
  m.set_candidate(self_);
  send(neighbour(+1), std::move(m));
}

void ring_election::on_message(const std::string& from,
                               const wire::Election& m, millis now) {
  if (foreign(m))
    return;
  if (m.round() < round_) {
    // An older instance. If its initiator is behind us, start a new
    // instance: it will pass the initiator and bring it up to date.
    ++ignored_;
    if (m.kind() == "Election" && m.candidate() == from && !participant_)
      start_election(now);
    return;
  }
  if (m.round() > round_) {
    round_ = m.round();
    participant_ = false;
  }
  const auto& c = m.candidate();
  if (m.kind() == "Election") {
    if (announced_ == round_ || !is_live(c)) {
      // The round is decided (with reordering an Election can trail
      // Elected), or the candidate died: it must not circle forever.
      ++ignored_;
    } else if (c > self_) {
      participate(now);
      forward_election(c);
    } else if (c < self_) {
      if (!participant_) { // replace with our own, larger id
        participate(now);
        forward_election(self_);
      }
    } else if (coord_ != self_) { // our id went all the way round
      declare();
    }
  } else if (m.kind() == "Elected") {
    if (adopt_elected(c, now)) {
      participant_ = false;
      send(neighbour(+1), m);
    }
  } else {
    ++ignored_;
  }
}

void ring_election::tick(millis now) {
  restart_when_due(now);
}

} // namespace dice
