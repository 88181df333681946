#pragma once
// Bully (Garcia-Molina, seed 002): states Down, Election, Reorganizing,
// Normal; AYUp looks for higher nodes, EnterElection halts the lower ones,
// SetCoord and NewState install the new coordinator. Assumes messages arrive
// within T (answer_timeout_ms): no loss.
#include <set>
#include <string>

#include "election/election.hpp"

namespace dice {

class bully_election final : public election_state {
public:
  bully_election(std::string self_id, election_config cfg);

  void on_view(std::vector<std::string> live_ids, millis now) override;
  void on_message(const std::string& from, const wire::Election& m,
                  millis now) override;
  void tick(millis now) override;
  /// The seed's Election(): ask higher nodes, then bully the lower ones.
  void start_election(millis now) override;
  std::vector<std::string> members() const override {
    return coord_ == self_ ? std::vector<std::string>(up_.begin(), up_.end())
                           : std::vector<std::string>{};
  }

private:
  enum class step { none, ay_up, enter_election, set_coord, new_state,
                    wait_higher, follow };

  void begin_enter(millis now);
  void finish_enter(millis now);
  void begin_new_state(millis now);
  void become_normal(millis now);
  void answer(const std::string& to, const wire::Election& req,
              const char* kind, bool yes);
  bool running() const;

  step step_ = step::none;
  std::string halted_;
  std::set<std::string> up_;      // who answered EnterElection
  std::size_t asked_ = 0;         // how many EnterElection we sent
  std::set<std::string> answers_; // SetCoord / NewState answers so far
  /// A member joined while an election ran: elect again once Normal.
  bool members_changed_ = false;
};

} // namespace dice
