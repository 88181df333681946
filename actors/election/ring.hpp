#pragma once
// Chang-Roberts (seed 002): a one-way ring of the sorted live ids. Election
// carries the highest id seen; the node that gets its own id back is the
// coordinator and circulates Elected. Each election is an instance (round)
// so that messages of an abandoned one cannot elect anybody; a participant
// that hears nothing within ring_timeout() starts a new instance, which is
// how crashes (and lost messages) are survived.
#include <string>

#include "election/election.hpp"

namespace dice {

class ring_election final : public election_state {
public:
  ring_election(std::string self_id, election_config cfg);

  void on_view(std::vector<std::string> live_ids, millis now) override;
  void on_message(const std::string& from, const wire::Election& m,
                  millis now) override;
  void tick(millis now) override;
  void start_election(millis now) override;

private:
  void participate(millis now);
  void declare();
  void forward_election(const std::string& candidate);

  bool participant_ = false;
};

} // namespace dice
