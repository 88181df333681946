#pragma once
// The communication subsystem (the paper's communication manager) as a
// state machine: every queue message into the node passes here, and every
// one for a single peer (sent to its node id: the bridge knows where peers
// listen); broadcasts of the other subsystems go to the bridge directly.
// It numbers this node's operations, logs them, drops duplicates, and runs
// anti-entropy: version vectors in heartbeats, retransmission of missed ops,
// snapshots for replicas that lag too far. It also keeps the coordinator
// role's bookkeeping (who recovers a dead member, the stable point that
// bounds the op log) and acknowledges submits once another replica has them.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "communication/op_log.hpp"
#include "vocabulary/version_vector.hpp"
#include "communication/peer_versions.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"

namespace dice {

class communication_machine {
public:
  /// `joins`: the node was started with peers to join, so before it has
  /// met one it is not alone, only not yet connected (see alone()).
  communication_machine(std::string id, std::string origin, queue_config cfg,
                        bool joins = false);
  static constexpr millis join_wait_ms = 5000;

  /// Any message the bridge delivers to the queue: a heartbeat or a queue
  /// message.
  void on_received(const wire::Message& m, millis now, ev::events& out);
  /// A queue message from a peer (header's sender_id filled).
  void on_message(const wire::Message& m, millis now, ev::events& out);
  void on_peer_heartbeat(const std::string& peer, std::uint64_t incarnation,
                         const wire::Heartbeat& hb, millis now,
                         ev::events& out);
  void on_peer_dead(const std::string& peer, millis now, ev::events& out);
  /// Acknowledges, one message per enqueuer, the ENQUEUEs received since
  /// the last call: drivers call it once per input, so a burst of ENQUEUEs
  /// costs one Ack, not one per task.
  void send_acks(ev::events& out);
  void set_coordinator(const std::string& coordinator, millis now,
                       ev::events& out);
  void tick(millis now, ev::events& out);
  /// When tick has work next (submits to acknowledge, the stable point to
  /// announce, the op log to compact); nothing: only an input brings work.
  std::optional<millis> next_due() const;

  void on(const ev::originate& e, millis now, ev::events& out);
  /// Drained: the heartbeats say so, and the peers count no seat here.
  void on(const ev::drain& e, millis now, ev::events& out);
  void on(const ev::prefetch_now& e, millis now, ev::events& out);
  void on(const ev::runner_changed& e, millis now, ev::events& out);
  void on(const ev::replica_digest& e, millis now, ev::events& out);
  void on(const ev::tasks_forgotten& e, millis now, ev::events& out);
  /// Another subsystem's message for one peer, to the bridge by node id.
  void on(const ev::send_to& e, millis now, ev::events& out);

  void fill_heartbeat(wire::Heartbeat* hb) const;
  /// Grows whenever what fill_heartbeat writes changes: a heartbeat's
  /// worth of peers' reports changes nothing, so nothing is re-sent.
  std::uint64_t heartbeat_changes() const { return heartbeat_changes_; }
  /// The id the next operation of this node will get.
  wire::OpId next_op() const;
  bool acknowledged(const std::string& task_id) const;

  const version_vector& seen() const { return seen_; }
  /// Origins known superseded and not yet pruned, since when.
  const std::map<std::string, millis>& superseded() const { return superseded_; }
  const op_log& log() const { return log_; }
  bool acts_as_coordinator() const {
    return !coordinated_ || coordinator_ == id_;
  }
  const std::set<std::string>& unrecovered() const { return unrecovered_; }
  const queue_counters& counters() const { return counters_; }
  /// What this node and each live peer can run, as their heartbeats say.
  std::vector<runner_capabilities> runners() const;
  /// What each live peer can run.
  std::vector<runner_capabilities> peer_runners() const;
  /// Grows whenever a live peer's seats or runner change (it joins,
  /// dies, or says otherwise).
  std::uint64_t seats_changes() const { return seats_changes_; }

private:
  // Sends `m` to node `peer` (the bridge resolves where it listens and
  // counts a message it cannot).
  void send(const std::string& peer, wire::Message m, ev::events& out);
  // Logs and hands on a peer's operation unless seen already. `relayed`:
  // resent from a peer's op log (a sync reply), so it says nothing about
  // what that peer believes now.
  void receive_op(const wire::Message& m, bool relayed, millis now,
                  ev::events& out);
  void on_sync_request(const wire::Message& m, ev::events& out);
  void on_sync_reply(const wire::Message& m, millis now, ev::events& out);
  void request_sync(const std::string& peer, millis now, bool snapshot,
                    ev::events& out);
  // A snapshot chunk's place in the transfer: it moved the cursor with more
  // to come, it completed the transfer, or it moved nothing (a chunk before
  // it was lost, then it waits in `ahead`; or it repeats one).
  enum class snapshot_step { more, complete, out_of_order };
  snapshot_step snapshot_chunk(const std::string& peer,
                               const wire::SyncReply& r, millis now);
  void recover(const std::string& peer, ev::events& out);
  void on_recovery(const wire::Message& m, ev::events& out);
  void announce_stable_point(millis now, ev::events& out);
  void on_stable_point(const wire::Message& m);
  void on_ack(const wire::Message& m, ev::events& out);
  // True if this replica is one of the ack_replicas live peers of
  // `enqueuer` (by rendezvous hash of its origin) that acknowledge it.
  bool acks_for(const std::string& enqueuer, const std::string& origin) const;
  void compact_to(const std::map<std::string, std::uint64_t>& floors);
  // Answers the submits some peer holds now (`acker`: what an Ack says a
  // peer holds, beyond the heartbeats' reports).
  void check_acks(ev::events& out, const version_vector* acker = nullptr);
  // The waiting submits `v` covers are answered.
  void ack_seen(const version_vector& v, ev::events& out);
  void ack(std::map<std::uint64_t, std::string>::iterator first,
           std::map<std::uint64_t, std::string>::iterator last, ev::events& out);
  void tell_live(ev::events& out);
  // -- superseded origins (superseded_origins.cpp) --
  // A node's newest incarnation as heard; its older origins in seen_
  // become superseded from `now`.
  void note_incarnation(const std::string& node, std::uint64_t incarnation,
                        millis now);
  void note_origin(const std::string& origin, millis now);
  void note_origins(millis now); // every origin of seen_
  // A newer incarnation of the origin's node (split_origin) is known.
  bool newer_incarnation_known(
    const std::pair<std::string, std::uint64_t>& origin) const;
  // A superseded origin the peer no longer reports, it pruned (or leaves
  // out of a full heartbeat): reports of one incarnation are joined, but
  // its old report of that origin must not hold back our own prune, nor
  // make us ask it, again and again, for ops it dropped.
  void forget_unreported_superseded(const std::string& peer,
                                    const version_vector& reported);
  // Drops the superseded origins every live peer has caught up on.
  void prune(millis now);
  // No live peer reports other ops of `origin` than this replica has seen.
  bool settled(const std::string& origin, millis since) const;
  // Bytes the version vector takes in a heartbeat.
  std::size_t versions_bytes() const;
  bool over_heartbeat_budget() const;
  void forget_superseded(const std::string& origin);
  void strip_pruned(version_vector& v) const;
  // What peer_versions keeps of a peer's report: this node's origin (acks)
  // and the superseded ones (settled()).
  version_vector kept_of(const version_vector& reported) const;

  std::string id_;
  std::string origin_;
  queue_config cfg_;
  bool draining_ = false;
  /// The claims beyond the slots the heartbeats advertise (ranking's).
  std::size_t prefetch_ = 0;

  version_vector seen_;
  op_log log_;
  std::uint64_t next_seq_ = 1;
  peer_versions peers_;
  bool joins_ = false;
  bool met_peer_ = false; // some peer's versions were ever heard
  std::optional<millis> joining_since_; // its first tick, while joining
  // No live peer could hold an op, and none is expected: a node started
  // alone, or every peer it met is gone. A submit is then acknowledged at
  // once; a joining node that has met nobody yet waits for a peer, for
  // join_wait_ms at most (its seeds may be down or mistyped, or it may be
  // the first node of a cluster brought back up).
  bool alone() const { return peers_.empty() && (!joins_ || met_peer_); }
  std::uint64_t digest_ = 0; // the replica's, as known_tasks last said
  std::uint64_t heartbeat_changes_ = 0;
  // Live peers, their slots and what they run, as heard in heartbeats;
  // changed since ready_queue was last told.
  std::map<std::string, ev::seats> peer_seats_;
  bool slots_changed_ = false;
  std::uint64_t seats_changes_ = 0;
  // Per node id, its newest incarnation heard of; per origin a newer one
  // superseded, since when; origins pruned from seen_ (oldest first).
  std::map<std::string, std::uint64_t> newest_incarnation_;
  std::map<std::string, millis> superseded_;
  millis next_prune_ = 0;
  // The version vector outgrew cfg_.heartbeat_versions_bytes with a
  // superseded origin in it: prune the settled ones without waiting.
  bool heartbeat_over_budget_ = false;
  millis next_early_prune_ = 0;
  std::set<std::string> pruned_;
  std::deque<std::string> pruned_order_;
  // Peers whose previous report had our ops but another replica digest.
  std::set<std::string> differed_;
  millis next_sync_ = 0;
  // A snapshot arriving in chunks: from whom, the version vector of its
  // first chunk, and the last task id received.
  struct snapshot_progress {
    std::string peer;
    version_vector base;
    std::string cursor; // every task up to this id is in
    // Chunks that came after a lost one: their start -> (their last id,
    // whether they end the snapshot). Taken in once the cursor reaches
    // them, so a lost chunk costs itself, not the chunks behind it.
    std::map<std::string, std::pair<std::string, bool>> ahead;
    millis heard = 0; // its last chunk came then
  };
  std::optional<snapshot_progress> snapshot_;
  millis next_compact_ = 0;

  // Our ENQUEUEs that no other replica is known to hold: seq -> task id,
  // in seq order, so what a peer's version vector covers is a prefix
  // (plus any seqs it saw past a gap) and checking costs what it acks,
  // not the whole backlog (a check per op over 100,000 waiting made a
  // burst of submits quadratic: issue 17).
  std::map<std::uint64_t, std::string> awaiting_ack_;
  // Enqueuers owed an Ack: (peer, its origin).
  std::set<std::pair<std::string, std::string>> acks_owed_;
  std::set<std::string> acked_;

  // The coordinator role: once an election runs (set_coordinator), only
  // the coordinator recovers a dead member at once: it re-queues the
  // member's executions, adopts the unfinished tasks it had enqueued and
  // broadcasts a Recovery. Every other node keeps the RUNNING timeout as
  // the fallback, so nothing is lost if the coordinator dies too; a node
  // elected later recovers the dead members nobody announced. The
  // coordinator also announces the stable point (ops every live member has
  // seen), up to which every replica compacts its op log. Without an
  // election every node does both itself.
  bool coordinated_ = false;
  std::string coordinator_;
  std::set<std::string> unrecovered_;
  // Dead members already recovered (by us or an announcement we heard),
  // until they are heard from again: recovered once per death.
  std::set<std::string> recovered_;
  millis next_stable_point_ = 0;

  queue_counters counters_;
};

/// The machine its actor runs (queue/), built the same in unit tests.
communication_machine make_communication_machine(const machine_config& c);

} // namespace dice
