#pragma once
// Hirschberg-Sinclair (seed 002): a bidirectional ring. In phase j a
// candidate probes 2^j hops both ways with Cand; a larger id answers
// Resp(false) and becomes a candidate itself; a candidate with two
// Resp(true) doubles the distance. The id whose Cand comes back to it is
// elected and circulates Elected. Instances (rounds) and ring_timeout()
// restarts survive crashes, as for the ring.
#include <cstdint>
#include <string>

#include "election/election.hpp"

namespace dice {

class hs_election final : public election_state {
public:
  hs_election(std::string self_id, election_config cfg);

  void on_view(std::vector<std::string> live_ids, millis now) override;
  void on_message(const std::string& from, const wire::Election& m,
                  millis now) override;
  void tick(millis now) override;
  void start_election(millis now) override;

private:
  enum class role { not_involved, candidate, lost, elected };

  void candidacy(millis now);
  void send_probes();
  void declare();
  std::string next(std::uint32_t direction) const;
  void on_cand(const std::string& from, const wire::Election& m, millis now);
  void on_resp(const wire::Election& m);

  role role_ = role::not_involved;
  std::uint32_t phase_ = 0;
  unsigned replies_ = 0; // bit per direction answered in this phase
  bool remain_ = true;
};

} // namespace dice
