#pragma once
// What the datagram fuzz targets share: the receiving node they attack, the
// key that lets a target sign its input, and valid messages of every body
// kind, from which the seed corpora are made.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "broadcast_bridge/bridge_state.hpp"
#include "dice.pb.h"
#include "fuzz_require.hpp"

namespace dice::fuzz {

/// The cluster both sides belong to and the key it signs with.
inline const std::string cluster_id = "dice";
inline const std::string cluster_key = "fuzz-cluster-key-0123456789";
/// The node under attack and the peer the seeds come from.
inline const std::string receiver_id = "receiver";
inline const std::string sender_id = "sender";

/// A fresh receiving bridge (keyed or not), as dice-node builds it.
bridge_state make_receiver(bool keyed);

/// An envelope of the current version holding `message_bytes`, tagged with
/// cluster_key: lets a target's bytes past authentication.
std::string sign(const std::string& message_bytes);

/// One message body of every kind in the schema, header unset; the last is
/// a bundle of several of them.
std::vector<wire::Message> sample_bodies();

/// `body` with the header a sender's bridge would give it (cluster_id,
/// sender_id, incarnation 1, `sequence`).
wire::Message with_header(wire::Message body, std::uint64_t sequence);

/// Whether `a` and `b` agree on every header field (not the body).
bool same_header(const wire::Message& a, const wire::Message& b);

/// Splits one fuzz input into several datagrams at `datagram_separator`,
/// so one input can exercise the replay window across datagrams.
inline const std::string datagram_separator = "\xF0\x9F\x8E\xB2" "DICE";
std::vector<std::string> split_datagrams(const std::uint8_t* data,
                                         std::size_t size);
/// The inverse of split_datagrams, for seeds.
std::string join_datagrams(const std::vector<std::string>& datagrams);

/// Opens every datagram with `receiver` and takes the accepted ones apart
/// as the bridge actor does, checking what open() promises of them.
void open_and_route(bridge_state& receiver,
                    const std::vector<std::string>& datagrams);

} // namespace dice::fuzz
