#pragma once
// Invitation (Garcia-Molina, seed 002): bully for asynchronous systems with
// partitions. A group is named (coordinator, counter); coordinators look for
// each other with AYCoordinator and merge groups by Invitation / Accept /
// Ready, the higher priority one first; members check their coordinator with
// AYThere and fall back to a group of their own (Recovery) when in doubt.
// Safety holds under loss: a group is whoever agrees on its name.
#include <set>
#include <string>

#include "election/election.hpp"

namespace dice {

class invitation_election final : public election_state {
public:
  invitation_election(std::string self_id, election_config cfg);

  void on_view(std::vector<std::string> live_ids, millis now) override;
  void on_message(const std::string& from, const wire::Election& m,
                  millis now) override;
  void tick(millis now) override;
  /// Recovery(): a new group of one, which then merges with the others.
  void start_election(millis now) override;
  std::vector<std::string> members() const override {
    return coord_ == self_ ? std::vector<std::string>(up_.begin(), up_.end())
                           : std::vector<std::string>{};
  }
  /// "coordinator:counter".
  std::string group() const override { return group_; }

private:
  enum class step { none, checking, merging, readying, accepting, awaiting };

  void recovery(millis now);
  void merge(millis now);
  void become_normal(millis now);
  void reply(const std::string& to, const char* kind, bool yes,
             const std::string& group);
  void on_invitation(const std::string& from, const wire::Election& m,
                     millis now);
  bool newer_group(const std::string& coord, std::uint64_t counter) const;

  step step_ = step::none;
  std::string group_;
  std::uint64_t group_counter_ = 0;
  std::set<std::string> up_;      // members of our group (coordinator)
  std::set<std::string> others_;  // other coordinators found by the check
  std::set<std::string> answers_; // Ready answers
};

} // namespace dice
