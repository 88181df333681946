#pragma once
// Every number a user can tune, with its default, in one place. Each has a
// matching dice-node option.
#include <cstddef>
#include <cstdint>

#include "common/time.hpp"

namespace dice::defaults {

// -- wire ---------------------------------------------------------------------
constexpr std::uint32_t protocol_version = 1;
/// Largest datagram we send or accept; well under the 64 KiB UDP limit.
constexpr std::size_t max_datagram_bytes = 60 * 1024;
/// Sequence numbers remembered per (sender, incarnation) against replays.
constexpr std::uint64_t replay_window = 1024;

// -- network --------------------------------------------------------------------
constexpr const char* listen = "0.0.0.0:7400";
constexpr const char* http = "127.0.0.1:8400";
constexpr const char* cluster_id = "dice";

// -- membership -----------------------------------------------------------------
constexpr millis heartbeat_interval_ms = 200;
/// No word from a peer for this long: suspect.
constexpr millis suspect_after_ms = 600;
/// No word from a peer for this long: dead (well inside the 2 s target).
constexpr millis dead_after_ms = 1200;
/// Peers listed in one heartbeat (the rest rotate through later heartbeats).
constexpr std::size_t gossip_peers_per_heartbeat = 64;
/// Dead peers are forgotten after this long (they rejoin by heartbeat).
constexpr millis forget_dead_after_ms = 60'000;

} // namespace dice::defaults
