#pragma once
// How a node without a data dir picks an incarnation above every earlier
// one of its id, whatever its clock says: before its actors start, it asks
// its peers (IncarnationProbe) which incarnation of its id they have heard,
// and takes one above the highest answer (IncarnationNotice). A machine
// without I/O: the caller sends what due() returns, feeds received
// datagrams to on_datagram() and stops when done(); time is passed in.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "broadcast_bridge/transport.hpp"
#include "common/defaults.hpp"
#include "common/time.hpp"

namespace dice {

struct incarnation_probe_config {
  /// Who asks; `self.incarnation` is what the clock offers (the start time).
  bridge_identity self;
  keyring keys; // the node's start keyring; empty: no authentication
  bridge_limits limits;
  /// HOST:PORT asked from the start (--peer). Peers heard meanwhile (their
  /// heartbeats still reach a restarted node) are asked too.
  std::vector<std::string> peers;
  /// Also ask the multicast group (due() then lists "" as a target).
  bool group = false;
  /// Random; a notice must echo it, so an old notice replayed is not taken.
  std::uint64_t nonce = 0;
  /// A node without a data dir waits at most this long at start for its
  /// peers to say which incarnation of its id they heard (it stops at once
  /// when every peer it asked has answered). Longer than a heartbeat
  /// interval, so that a peer that still sends it heartbeats is heard, and
  /// asked, even when no --peer is given. 0: no probe (the start time).
  millis window_ms = 500;
  /// The probe is sent again this often to peers that did not answer yet.
  millis retry_ms = 100;
};

struct incarnation_probe_counters {
  std::uint64_t probes_sent = 0;
  std::uint64_t notices_taken = 0;
  /// Authenticated notices not for this probe (another id, another nonce).
  std::uint64_t notices_ignored = 0;
  /// Datagrams that did not open (malformed, unauthenticated, ...).
  std::uint64_t datagrams_dropped = 0;
};

class incarnation_probe {
public:
  incarnation_probe(incarnation_probe_config cfg, millis now);

  /// Probes to send now, as (HOST:PORT, datagram); "" is the multicast
  /// group. Each target unanswered is asked again every retry_ms.
  std::vector<std::pair<std::string, std::string>> due(millis now);

  /// A datagram received while probing (`d.from` is where it came from).
  void on_datagram(const datagram& d, millis now);

  /// The window is over, or every peer asked has answered.
  bool done(millis now) const;
  /// When due() has something next or the window ends, whichever is first.
  millis next_wakeup() const;

  /// The clock's offer, or one above the highest incarnation heard.
  std::uint64_t incarnation() const;
  /// The highest incarnation of this id the peers have heard; 0: none.
  std::uint64_t highest_heard() const { return highest_; }
  const incarnation_probe_counters& counters() const { return counters_; }

private:
  struct target {
    millis next_due = 0;
    bool answered = false;
  };

  void ask(const std::string& addr, millis now);
  void answered(const std::string& addr);

  incarnation_probe_config cfg_;
  bridge_state bridge_; // seals with incarnation 0: a probe asserts nothing
  millis deadline_;
  std::map<std::string, target> targets_; // by canonical HOST:PORT
  millis group_due_;
  bool any_answer_ = false;
  std::uint64_t highest_ = 0;
  incarnation_probe_counters counters_;
};

} // namespace dice
