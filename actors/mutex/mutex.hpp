#pragma once
// Cluster-wide locks (seed 001, mutual exclusion): every algorithm is a plain
// state machine behind one interface, like the elections. Inputs: the live
// members, the coordinator (central), requests and releases of this node,
// Mutex messages from peers and timer ticks. Outputs: messages to send, the
// resources this node entered and those it lost. Time is passed in; nothing
// here reads a clock, sleeps or does I/O. Every resource (a lock name) is
// independent of the others.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/defaults.hpp"
#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// Ricart-Agrawala: no central point, 2(n-1) messages an entry, safe under
/// loss and crashes (see docs/coordination.md); not under partitions,
/// like every choice but voting.
inline constexpr const char* default_mutex_algorithm = "ricart-agrawala";
/// A task lock held here that no ready task asked for within this is given
/// back (the task went elsewhere or was removed).
inline constexpr millis default_task_lock_idle_ms = 1000;

/// The locks' timing (the --mutex-* options).
struct mutex_config {
  /// An unanswered request, release, grant or census is sent again after this.
  /// Two loopback round trips are well under 1 ms; a LAN's under 10 ms.
  millis retry_ms = 200;
  /// Voting: a holder keeps its lock only while a majority confirmed it within
  /// this (seven refreshes at retry_ms: seven losses in a row end a hold).
  millis lease_ms = 1500;
  /// Voting: a voter takes its vote back after this long without word from its
  /// holder, and a node abstains this long after it starts (it forgot its
  /// votes). Must exceed the lease, so the old holder lets go first.
  millis reclaim_ms = 2500;
  /// Voting: quorum over at least this many voters (0: the members seen). Set
  /// it to the cluster's size so a node that has not met everyone yet cannot
  /// make a majority of what it has seen.
  std::size_t voters = 0;
  /// Token ring: an idle token waits this long at each node before it moves
  /// on: a token round of n nodes costs n datagrams (and acks) per n * this.
  millis token_hop_ms = 50;
  /// Token ring: the lowest live node regenerates the token after not seeing
  /// it for this long plus a round of hops (a census of every live node first).
  millis token_loss_ms = 2000;
  /// Request numbers start above this: a restarted node (a new incarnation)
  /// must not take an answer to its previous life's request as its own.
  std::uint64_t request_base = 0;
  /// Voting: the node may have voted before it started (a restart), so it
  /// abstains for reclaim_ms. Simulations start a fresh cluster without it.
  bool abstain_at_start = true;

  /// Empty when usable, otherwise a one-line reason naming the bad option.
  std::string problem() const;
};

/// One message to send: to a node id, or to every live member when `to` is
/// empty.
struct mutex_send {
  std::string to;
  wire::Mutex msg;
};

/// What this node knows of one resource: who holds it and who waits. A
/// node knows the whole picture only where its algorithm puts it (the
/// coordinator, the token's last visit); elsewhere its own part.
struct lock_info {
  std::string resource;
  std::string holder; // empty: free or unknown here
  std::vector<std::string> waiters;
};

class mutex_state {
public:
  virtual ~mutex_state() = default;

  /// Membership changed: ids of the live nodes (self included, any order).
  /// Holds and requests of nodes that left are dropped.
  virtual void on_view(std::vector<std::string> live, millis now);
  /// The elected coordinator (central only; "" when there is none).
  virtual void on_coordinator(const std::string&, millis) {}
  /// Asks for `resource`; nothing if already held or asked for.
  virtual void request(const std::string& resource, millis now) = 0;
  /// Leaves `resource`, or gives up waiting for it.
  virtual void release(const std::string& resource, millis now) = 0;
  virtual void on_message(const std::string& from, const wire::Mutex& m,
                          millis now) = 0;
  /// Retransmissions and timeouts; call at next_deadline() or later.
  virtual void tick(millis now) = 0;
  virtual std::optional<millis> next_deadline() const;
  virtual std::vector<lock_info> locks() const;

  std::vector<mutex_send> take_outbox();
  /// Resources this node entered since the last call.
  std::vector<std::string> take_granted();
  /// Resources this node held and lost without releasing them (voting: its
  /// majority stopped confirming; the work under the lock must stop).
  std::vector<std::string> take_lost();

  bool holds(const std::string& r) const { return held_.count(r) > 0; }
  bool wants(const std::string& r) const { return wanted_.count(r) > 0; }
  const std::set<std::string>& held() const { return held_; }
  const std::set<std::string>& wanted() const { return wanted_; }
  const std::string& id() const { return self_; }
  const std::string& algorithm() const { return algorithm_; }
  const std::vector<std::string>& live() const { return live_; }
  /// Messages of another algorithm, or with no resource.
  std::uint64_t ignored_messages() const { return ignored_; }

protected:
  mutex_state(std::string algorithm, std::string self_id, mutex_config cfg);

  wire::Mutex make(const char* kind, const std::string& resource) const;
  void send(const std::string& to, wire::Mutex m);
  void broadcast(wire::Mutex m);
  /// Records the entry (held, no longer only wanted) for take_granted().
  void enter(const std::string& r);
  void lose(const std::string& r);
  /// False (and counted) for a message of another algorithm or no resource.
  bool accept(const wire::Mutex& m);
  bool is_live(const std::string& id) const;
  /// Asks tick() to run at `t` (the earliest asked wins until it runs).
  void wake_at(millis t);

  std::string algorithm_;
  std::string self_;
  mutex_config cfg_;
  std::vector<std::string> live_; // sorted, self included
  std::set<std::string> held_;
  std::set<std::string> wanted_; // asked for, held or not
  std::uint64_t next_request_;
  std::optional<millis> wake_;
  std::uint64_t ignored_ = 0;

private:
  std::vector<mutex_send> outbox_;
  std::vector<std::string> granted_;
  std::vector<std::string> lost_;
};

/// The algorithm names make_mutex accepts.
const std::vector<std::string>& mutex_algorithms();

/// "central", "voting", "ricart-agrawala" or "token-ring". Throws
/// std::invalid_argument for another name, an empty id or a bad config.
std::unique_ptr<mutex_state> make_mutex(const std::string& algorithm,
                                        std::string self_id,
                                        mutex_config cfg = {});

} // namespace dice
