#pragma once
// Causal broadcast (seed 001, causal multicast with vector clocks): a node
// stamps each event it publishes with its vector clock; a receiver holds an
// event back until it has delivered every event the sender had delivered
// before publishing it (ts[origin] = VC[origin] + 1, ts[k] <= VC[k]
// otherwise), then delivers it exactly once. Loss is repaired by digests:
// every sync_ms a node broadcasts what it has delivered (with nothing new to
// say, every quiet_digest_every-th time only), and a peer sends it the
// events it holds that the digest lacks. Each node keeps the events it
// delivered until the digest of every peer ever seen live (a silent one may
// be across a partition) covers them (at most log_limit).
// A plain state machine: time passed in, no I/O.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clocks/vector_clock.hpp"
#include "common/defaults.hpp"
#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

/// Causal broadcast's tuning (--event-sync-ms, --event-log-limit).
struct causal_config {
  /// Every node broadcasts what it delivered this often; peers resend what it
  /// lacks. A lost event is repaired within about this (plus a round trip).
  millis sync_ms = 500;
  /// Delivered events kept for peers that may miss them (until every live
  /// peer has them): 10,000 events of a few hundred bytes.
  std::size_t log_limit = 10'000;
  /// Events resent to one peer per digest: a datagram's worth or two.
  std::size_t resend_limit = 64;
  /// Besides an event's origin, about this many of the nodes holding it
  /// resend it to a peer whose digest lacks it, a different few each
  /// sync_ms, and four times as many once the peer's digest before lacked
  /// it too (0: every holder, every time). With every holder answering
  /// every digest, one lost event cost its receiver N resends: at 32
  /// simulated nodes and 20% loss, 85% of all datagrams were resent events.
  std::size_t resenders = 2;
  /// Events held back waiting for their causes, at most.
  std::size_t held_limit = 10'000;
  /// Delivered events GET /events can list (per node).
  std::size_t delivered_keep = 1'000;
  /// A digest with no news (nothing delivered since the last one, nothing
  /// known to be missing) goes out only every this many sync_ms: peers act
  /// on news alone, and at hundreds of nodes everyone's unchanged digest
  /// every sync_ms was most of the events' traffic.
  std::size_t quiet_digest_every = 8;
};

/// One delivered event, numbered in this node's delivery order.
struct causal_delivery {
  std::uint64_t index = 0; // 1, 2, ... on this node
  std::string origin;
  std::uint64_t seq = 0;   // the origin's number for it
  std::string topic;
  std::string data;
  std::int64_t time_ms = 0;
};

/// What this node's causal broadcast did, for /stats and /metrics.
struct causal_stats {
  std::uint64_t published = 0; // by users of this node
  std::uint64_t delivered = 0; // here, its own included
  std::uint64_t held_back = 0; // now: waiting for an event before them
  std::uint64_t duplicates = 0;
  std::uint64_t resent = 0;     // to peers whose digest lacked them
  std::uint64_t overflowed = 0; // dropped: the hold-back queue was full
};

/// A message to send: to a node id, or to every live member when empty.
struct causal_send {
  std::string to;
  wire::Message msg; // a CausalEvent or a CausalDigest body
};

class causal_machine {
public:
  causal_machine(std::string self_id, causal_config cfg = {});

  /// Live members (self included): digests of others are awaited from them
  /// only, so a dead node does not keep events in the log for ever.
  void on_view(std::vector<std::string> live);
  /// Publishes (and delivers here at once); returns the delivery.
  causal_delivery publish(const std::string& topic, const std::string& data,
                          millis now);
  void on_event(const std::string& from, const wire::CausalEvent& e, millis now);
  void on_digest(const std::string& from, const wire::CausalDigest& d, millis now);
  /// Sends the digest every sync_ms (every quiet_digest_every-th when it
  /// has no news), and drops from the log what every peer's digest since
  /// says it holds.
  void tick(millis now);
  std::optional<millis> next_deadline() const { return next_sync_; }

  std::vector<causal_send> take_outbox();
  /// Events delivered since the last call, in delivery order.
  std::vector<causal_delivery> take_delivered();
  /// The newest delivered events (at most delivered_keep), oldest first.
  const std::deque<causal_delivery>& recent() const { return recent_; }
  const vector_clock& delivered_clock() const { return vc_; }

  std::size_t held_back() const { return held_.size(); }
  /// Delivered events still kept for peers that may lack them.
  std::size_t logged() const { return log_.size(); }
  causal_stats stats() const {
    return {published_, index_, held_.size(), duplicates_, resent_, overflowed_};
  }
  std::uint64_t duplicates() const { return duplicates_; }
  std::uint64_t resent() const { return resent_; }
  /// Events dropped because the hold-back queue was full.
  std::uint64_t overflowed() const { return overflowed_; }

private:
  using key = std::pair<std::string, std::uint64_t>; // origin, seq
  // The event's own entry in its stamp (its number at its origin).
  static std::uint64_t stamp_of(const wire::CausalEvent& e);
  bool deliverable(const wire::CausalEvent& e) const;
  void deliver(const wire::CausalEvent& e);
  void prune();
  /// Ends the round of digests once every live peer was heard in it.
  void complete_round();

  std::string self_;
  causal_config cfg_;
  vector_clock vc_;
  std::set<std::string> live_;
  bool prune_due_ = false; // what the log may drop changed since the last prune
  std::map<key, wire::CausalEvent> held_;
  /// A delivered event as kept for resends: serialized, for a parsed one
  /// holds an object per entry of its stamp (at 64 simulated nodes, where
  /// every node publishes, parsed stamps in the logs were the largest use
  /// of memory), with its stamp's sum, the order resends go in.
  struct logged_event {
    std::string bytes;
    std::uint64_t clock_sum = 0;
  };
  std::map<key, logged_event> log_; // delivered, kept for resends
  // Per origin the seq delivered up to, sorted by origin: flat, since
  // every node reads every peer's digest each sync_ms.
  using digest = std::vector<std::pair<std::string, std::uint64_t>>;
  static std::uint64_t delivered_in(const digest& d, const std::string& origin);
  /// Per origin the lower of the two (an origin one lacks: 0, left out).
  static digest lower_of(const digest& a, const digest& b);
  // Nothing is kept of each peer's whole digest: that was an entry per
  // peer and origin, O(N^2) per node once every node publishes. Instead:
  // - what every live peer has delivered, as the last complete round of
  //   digests (one from each) said, and who was in that round;
  digest stable_;
  std::set<std::string> stable_members_;
  // - the round under way: per origin the lowest seq heard, and from whom;
  digest round_min_;
  std::set<std::string> round_heard_;
  // - a peer that left the view is still owed what it lacks (it may be
  //   across a partition and come back; log_limit bounds what waits): what
  //   it had delivered at least when it left, until its first digest once
  //   it is back;
  std::map<std::string, digest> departed_;
  // - per peer, its last digest's entries for the origins of which it
  //   lacked events this log held: a lack seen twice widens the resenders.
  std::map<std::string, digest> lacked_last_;
  std::deque<causal_delivery> recent_;
  std::vector<causal_delivery> fresh_;
  std::vector<causal_send> outbox_;
  std::uint64_t index_ = 0;
  std::optional<millis> next_sync_;
  std::uint64_t digest_index_ = 0; // index_ when the last digest went out
  bool lacking_ = false;  // a peer's digest named events not delivered here
  std::size_t quiet_syncs_ = 0; // sync_ms passed without a digest sent
  std::uint64_t published_ = 0;
  std::uint64_t duplicates_ = 0;
  std::uint64_t resent_ = 0;
  std::uint64_t overflowed_ = 0;
};

} // namespace dice
