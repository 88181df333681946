#pragma once
// What the broadcast bridge has seen: every datagram is either accepted or
// dropped for exactly one reason.
#include <cstdint>
#include <map>
#include <string>

namespace dice {

/// Messages of one family (topic_of: membership, queue, sync, election,
/// tester, mutex, causal). A bundle's parts count one by one; bytes are the
/// message's own, without envelope. A broadcast sealed once counts once,
/// however many peers it goes to (datagrams_sent counts the copies).
struct kind_traffic {
  std::uint64_t sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t received = 0;
  std::uint64_t bytes_received = 0;
};

/// Datagrams per cluster key (keyring.hpp), by key id: sealed with it (a
/// broadcast once, however many peers it goes to) and accepted under it.
struct key_traffic {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

struct bridge_counters {
  std::uint64_t datagrams_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t send_errors = 0;
  std::uint64_t bundles_sent = 0;      // sealed bundles (each to every target)
  // Messages for a node id with no known address: neither membership nor
  // a datagram of its said where it listens, so they could not go.
  std::uint64_t unaddressed = 0;
  // Datagrams passed on for their origin, as a super-peer (or as a node
  // some peer took for one): counted in datagrams_sent too.
  std::uint64_t relayed = 0;
  // Datagrams handed to this node to pass on that it passed to everyone:
  // a peer took it for a super-peer it is not (views differ for a while).
  std::uint64_t relayed_to_everyone = 0;
  std::uint64_t sent_over_bundle_bytes = 0; // datagrams larger than --bundle-bytes
  // The messages behind them, sealed once each, by body name ("bundle" for
  // a bundle): which sender outgrew the budget.
  std::map<std::string, std::uint64_t> over_bundle_bytes_by_body;
  std::uint64_t datagrams_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t accepted = 0;
  std::uint64_t bundles_received = 0;  // of the accepted
  std::uint64_t dropped_malformed = 0;       // undecodable bytes or bad header
  std::uint64_t dropped_unauthenticated = 0; // missing or wrong HMAC tag
  std::uint64_t dropped_replayed = 0;        // seen (sender, incarnation, seq)
  std::uint64_t dropped_stale_incarnation = 0; // an older life of its sender
  std::uint64_t dropped_oversize = 0;        // larger than max_datagram_bytes
  std::uint64_t dropped_version = 0;         // unknown protocol version
  std::uint64_t dropped_cluster = 0;         // another cluster id
  std::uint64_t dropped_self = 0;            // our own datagram looped back
  // IncarnationProbes (accepted): answered, or not for the rate limit.
  std::uint64_t probes_answered = 0;
  std::uint64_t probes_unanswered = 0;
  /// Sealed and accepted messages by family.
  std::map<std::string, kind_traffic> by_kind;
  /// Datagrams by the key that signed them (empty without a keyring).
  std::map<std::string, key_traffic> by_key;
  /// Datagrams dropped (and counted in dropped_unauthenticated) because
  /// they name a key id this node does not hold: a peer signs with a key
  /// not installed here. At most unknown_key_ids_limit ids; the rest count
  /// under "other".
  std::map<std::string, std::uint64_t> unknown_key_ids;
  static constexpr std::size_t unknown_key_ids_limit = 32;

  std::uint64_t dropped() const {
    return dropped_malformed + dropped_unauthenticated + dropped_replayed
           + dropped_stale_incarnation
           + dropped_oversize + dropped_version + dropped_cluster + dropped_self;
  }
};

} // namespace dice
