#pragma once
// Election in ad hoc networks (Vasudevan et al., seed 001): the source sends
// Election to its neighbours; the first Election a node gets makes the
// sender its parent and is passed on to its other neighbours; a node answers
// its parent (Ack) once all its own neighbours answered, reporting the best
// node of its subtree (capacity, then id). The source announces the winner
// with Leader. Concurrent elections: the higher (round, source) wins.
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "election/election.hpp"

namespace dice {

class echo_election final : public election_state {
public:
  echo_election(std::string self_id, election_config cfg);

  void on_view(std::vector<std::string> live_ids, millis now) override;
  void on_message(const std::string& from, const wire::Election& m,
                  millis now) override;
  void tick(millis now) override;
  void start_election(millis now) override;

private:
  using rank = std::pair<std::uint32_t, std::string>; // capacity, id

  std::vector<std::string> neighbours() const;
  void join(const std::string& source, const std::string& parent, millis now);
  void maybe_complete();
  wire::Election tagged(const char* kind) const;

  std::string source_; // initiator of the instance we take part in
  std::string parent_;
  std::set<std::string> pending_; // neighbours yet to answer
  rank best_;
  bool participating_ = false;
  bool reported_ = false; // our Ack went to the parent
};

} // namespace dice
