#pragma once
// Defaults shared by several parts: the wire's limits, the addresses a node
// starts on, a result's size. Every part keeps its own, documented, as the
// default of its config struct's field (queue_config, membership_config,
// election_config, mutex_config, causal_config, bridge_limits, http_config,
// tester_config, shell_config, journal_options, ...), from which dice-node's
// --help takes them.
#include <cstddef>
#include <cstdint>

#include "common/time.hpp"

namespace dice::defaults {

// -- wire ---------------------------------------------------------------------
constexpr std::uint32_t protocol_version = 1;
/// Largest datagram we send or accept; well under the 64 KiB UDP limit.
constexpr std::size_t max_datagram_bytes = 60 * 1024;
/// Broadcasts sent at once share datagrams of at most this size (0: never).
/// One Ethernet frame's payload: IP loses a fragmented datagram whole when
/// any fragment is lost, so larger bundles would multiply loss on a LAN.
constexpr std::size_t bundle_bytes = 1400;

// -- network --------------------------------------------------------------------
/// Loopback: a node started with no options is a working single node, and
/// reaching other machines (0.0.0.0) asks for a cluster key.
constexpr const char* listen = "127.0.0.1:7400";
constexpr const char* http = "127.0.0.1:8400";
constexpr const char* cluster_id = "dice";

// -- results --------------------------------------------------------------------
/// A task's result travels in one datagram (as its payload does).
constexpr std::size_t max_result_bytes = 32 * 1024;

} // namespace dice::defaults
