#pragma once
// Token ring (seed 001): one token travels the ring of live members in id
// order. It carries the table of held resources: the node that has it takes
// the free resources it wants, drops the ones it left, and passes it on after
// token_hop_ms. 1 to infinitely many messages an entry (the token moves even
// when nobody wants anything). Each pass is acknowledged and sent again until
// it is, and numbered, so a duplicate is recognised.
// A token is lost only with the node that had it (or the one it was passed
// to, if that one died before acknowledging). The lowest live node notices
// the silence (token_loss_ms plus a round) and makes a new token of a higher
// generation from a census of what every live node holds; the census retires
// older tokens everywhere before the new one starts, so a token thought lost
// that was only slow does no harm. Safe under loss, duplication, reordering
// and crashes; not under partitions (each side makes its own token).
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "mutex/hold_census.hpp"
#include "mutex/mutex.hpp"

namespace dice {

class token_ring_mutex : public mutex_state {
public:
  token_ring_mutex(std::string self_id, mutex_config cfg);

  void on_view(std::vector<std::string> live, millis now) override;
  void request(const std::string& r, millis now) override;
  void release(const std::string& r, millis now) override;
  void on_message(const std::string& from, const wire::Mutex& m,
                  millis now) override;
  void tick(millis now) override;
  std::vector<lock_info> locks() const override;

  /// Whether the token is here (for tests).

private:
  using rank = std::pair<std::uint64_t, std::string>; // generation, creator

  void on_token(const std::string& from, const wire::Mutex& m, millis now);
  void on_census(const std::string& from, const wire::Mutex& m);
  void take(millis now);
  void pass(millis now);
  void start_census(std::uint64_t generation, millis now);
  millis loss_timeout() const;
  std::string successor() const;
  wire::Mutex token_message(const char* kind) const;

  rank rank_{0, ""};           // the newest token or census seen
  std::uint64_t hop_ = 0;      // of the last token accepted at rank_
  bool have_ = false;
  std::map<std::string, wire::MutexHold> table_; // the token's (last seen)
  millis pass_at_ = 0;
  std::optional<wire::Mutex> passing_; // sent, not acknowledged yet
  std::string pass_to_;
  std::optional<millis> last_seen_;
  std::map<std::string, std::uint64_t> request_of_;
  // Left since the token was here last: not taken again before it moves on,
  // so the next node waiting gets its turn.
  std::set<std::string> left_;
  hold_census census_;
};

} // namespace dice
