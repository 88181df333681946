#pragma once
// Elections (seeds 001, 002): every algorithm is a plain state machine behind
// one interface. The election actor feeds it the membership view, decoded
// Election messages and timer ticks, and sends what it leaves in the outbox.
// Time is passed in; nothing here reads a clock, sleeps or does I/O.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// The algorithm a node elects with unless told otherwise (--election).
inline constexpr const char* default_election_algorithm = "bully";

/// An election's timing (--election-timeout-ms, --election-check-ms) and
/// echo's capacity (--capacity).
struct election_config {
  /// T of the seed: a live peer answers within this (2 Tm + Tp).
  millis answer_timeout_ms = 100;
  /// Period of AYUp / AYNormal / AYThere / AYCoordinator checks.
  millis check_interval_ms = 1000;
  /// Bound on one ring hop; ring, hs and echo give up after a multiple of it
  /// scaled by the number of live nodes.
  millis hop_timeout_ms = 50;
  /// Invitation: a coordinator that found others waits up to this long, less
  /// for higher priority, so the highest merges first.
  millis merge_delay_ms = 500;
  /// Echo: neighbours on each side in the id ring (0 = every live node).
  std::size_t echo_radius = 0;
  /// ring, hs: the successor is the next lower id instead of the next higher.
  bool ring_descending = false;
  /// echo: this node's capacity (e.g. battery); higher is better.
  std::uint32_t capacity = 0;
  /// What the node kept on stable storage (the election instance or group
  /// counter, see stable_counter()): instances keep growing across restarts.
  std::uint64_t stable_counter = 0;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

/// One message to send: to a node id, or to everyone when `to` is empty.
struct election_send {
  std::string to;
  wire::Election msg;
};

class election_state {
public:
  virtual ~election_state() = default;

  /// Membership changed: ids of the live nodes (self included). Also the
  /// ring order of ring, hs and echo, so dead successors are skipped.
  virtual void on_view(std::vector<std::string> live_ids, millis now) = 0;
  virtual void on_message(const std::string& from, const wire::Election& m,
                          millis now) = 0;
  /// Timeouts and periodic checks; call at next_deadline() or later.
  virtual void tick(millis now) = 0;
  /// Starts an election from this node (what a failure suspicion does).
  virtual void start_election(millis now) = 0;

  /// When tick() next has something to do.
  std::optional<millis> next_deadline() const;
  std::vector<election_send> take_outbox();

  const std::optional<std::string>& coordinator() const { return coord_; }
  /// "down", "election", "reorganizing" or "normal".
  const std::string& state() const { return state_; }
  /// The group this node belongs to; invitation names it "coordinator:counter",
  /// the others by the coordinator alone (empty when there is none).
  virtual std::string group() const { return coord_.value_or(""); }
  /// A coordinator's Up set (the members it answers for), for bully and
  /// invitation; empty for the others and for non-coordinators.
  virtual std::vector<std::string> members() const { return {}; }
  const std::string& id() const { return self_; }
  const std::string& algorithm() const { return algorithm_; }
  /// Persist this and pass it back as election_config::stable_counter.
  std::uint64_t stable_counter() const { return round_; }
  std::uint64_t elections_started() const { return elections_started_; }
  /// Messages of another algorithm, of an unknown kind or otherwise dropped.
  std::uint64_t ignored_messages() const { return ignored_; }

protected:
  election_state(std::string algorithm, std::string self_id,
                 election_config cfg);

  /// A message of this algorithm stamped with the current instance.
  wire::Election make(const char* kind) const;
  void send(const std::string& to, wire::Election m);
  void broadcast(wire::Election m);
  /// Stores the view (sorted, unique, self added); false if unchanged.
  bool set_view(std::vector<std::string> live);
  bool is_live(const std::string& id) const;
  /// Next live node along the ring: +1 successor, -1 predecessor.
  std::string neighbour(int step) const;
  /// A wait bounded by the ring length, for ring, hs and echo.
  millis ring_timeout() const;
  /// ring, hs: an Elected announcement of `c` arrived. Adopts `c` unless it
  /// is ours or a repeat (false: nothing to pass on); starts a new election
  /// instead if `c` is dead or the round missed this node (false too).
  /// True: pass the announcement on along the ring.
  bool adopt_elected(const std::string& c, millis now);
  /// ring, hs: a wait ran out, so the election restarts.
  void restart_when_due(millis now);
  bool foreign(const wire::Election& m);

  std::string algorithm_;
  std::string self_;
  election_config cfg_;
  std::vector<std::string> view_;
  std::optional<std::string> coord_;
  std::string state_ = "down";
  std::uint64_t round_ = 0;
  /// The current wait (reply, round or instance timeout), the periodic
  /// check, the wait for its answer, and invitation's priority wait.
  std::optional<millis> deadline_;
  std::optional<millis> check_at_;
  std::optional<millis> probe_at_;
  std::optional<millis> merge_at_;
  std::uint64_t announced_ = 0; // ring, hs: round of the last Elected seen
  std::uint64_t elections_started_ = 0;
  std::uint64_t ignored_ = 0;

private:
  std::vector<election_send> outbox_;
};

/// The algorithm names make_election accepts.
const std::vector<std::string>& election_algorithms();

/// "bully", "ring" (Chang-Roberts), "hs" (Hirschberg-Sinclair), "invitation"
/// or "echo". Throws std::invalid_argument for another name, an empty id or
/// a config with a problem.
std::unique_ptr<election_state> make_election(const std::string& algorithm,
                                              std::string self_id,
                                              election_config cfg = {});

} // namespace dice
