#include "election/election.hpp"

#include <algorithm>
#include <stdexcept>

#include "election/bully.hpp"
#include "election/echo.hpp"
#include "election/hs.hpp"
#include "election/invitation.hpp"
#include "election/ring.hpp"

namespace dice {

std::string election_config::problem() const {
  if (answer_timeout_ms <= 0)
    return "election answer timeout must be positive";
  if (check_interval_ms <= 0)
    return "election check interval must be positive";
  if (hop_timeout_ms <= 0)
    return "election hop timeout must be positive";
  if (merge_delay_ms < 0)
    return "election merge delay must not be negative";
  return {};
}

election_state::election_state(std::string algorithm, std::string self_id,
                               election_config cfg)
  : algorithm_(std::move(algorithm)),
    self_(std::move(self_id)),
    cfg_(std::move(cfg)),
    view_{self_},
    round_(cfg_.stable_counter) {
  if (self_.empty())
    throw std::invalid_argument("election: empty node id");
  if (auto p = cfg_.problem(); !p.empty())
    throw std::invalid_argument("election: " + p);
}

std::optional<millis> election_state::next_deadline() const {
  std::optional<millis> t;
  for (const auto& d : {deadline_, check_at_, probe_at_, merge_at_})
    if (d && (!t || *d < *t))
      t = d;
  return t;
}

std::vector<election_send> election_state::take_outbox() {
  std::vector<election_send> out;
  out.swap(outbox_);
  return out;
}

wire::Election election_state::make(const char* kind) const {
  wire::Election m;
  m.set_algorithm(algorithm_);
  m.set_kind(kind);
  m.set_round(round_);
  return m;
}

void election_state::send(const std::string& to, wire::Election m) {
  if (to == self_)
    return;
  outbox_.push_back({to, std::move(m)});
}

void election_state::broadcast(wire::Election m) {
  outbox_.push_back({std::string{}, std::move(m)});
}

bool election_state::set_view(std::vector<std::string> live) {
  live.push_back(self_);
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  if (live == view_)
    return false;
  view_ = std::move(live);
  return true;
}

bool election_state::is_live(const std::string& id) const {
  return std::binary_search(view_.begin(), view_.end(), id);
}

std::string election_state::neighbour(int step) const {
  auto n = static_cast<long>(view_.size());
  auto i = static_cast<long>(
    std::lower_bound(view_.begin(), view_.end(), self_) - view_.begin());
  if (cfg_.ring_descending)
    step = -step;
  return view_[static_cast<std::size_t>(((i + step) % n + n) % n)];
}

millis election_state::ring_timeout() const {
  // A ring election needs at most ~6 passes of n hops (hs: out-and-back
  // probes of doubling distance, then the announcement); 8 leaves slack.
  return cfg_.hop_timeout_ms * (8 * static_cast<millis>(view_.size()) + 8);
}

bool election_state::adopt_elected(const std::string& c, millis now) {
  if (c == self_ || (announced_ == round_ && coord_ == c))
    return false; // back at the coordinator, or a duplicate
  coord_ = c;
  state_ = "normal";
  deadline_.reset();
  announced_ = round_;
  if (!is_live(c) || c < self_) {
    // The winner died while this went round, or the round missed us (we
    // just came up).
    start_election(now);
    return false;
  }
  return true;
}

void election_state::restart_when_due(millis now) {
  if (deadline_ && *deadline_ <= now) {
    deadline_.reset();
    start_election(now);
  }
}

bool election_state::foreign(const wire::Election& m) {
  if (m.algorithm() == algorithm_)
    return false;
  ++ignored_;
  return true;
}

const std::vector<std::string>& election_algorithms() {
  static const std::vector<std::string> names{"bully", "ring", "hs",
                                              "invitation", "echo"};
  return names;
}

std::unique_ptr<election_state> make_election(const std::string& algorithm,
                                              std::string self_id,
                                              election_config cfg) {
  if (algorithm == "bully")
    return std::make_unique<bully_election>(std::move(self_id), cfg);
  if (algorithm == "ring")
    return std::make_unique<ring_election>(std::move(self_id), cfg);
  if (algorithm == "hs")
    return std::make_unique<hs_election>(std::move(self_id), cfg);
  if (algorithm == "invitation")
    return std::make_unique<invitation_election>(std::move(self_id), cfg);
  if (algorithm == "echo")
    return std::make_unique<echo_election>(std::move(self_id), cfg);
  throw std::invalid_argument("unknown election algorithm '" + algorithm
                              + "' (bully, ring, hs, invitation, echo)");
}

} // namespace dice
