#include "broadcast_bridge/bridge_state.hpp"

#include <algorithm>
#include <mutex>

#include <google/protobuf/stubs/logging.h>

#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/hmac.hpp"
#include "broadcast_bridge/topic.hpp"
#include "broadcast_bridge/wire_budget.hpp"

namespace dice {

bridge_state::bridge_state(bridge_identity self, keyring keys,
                           bridge_limits limits)
  : self_(std::move(self)),
    keys_(std::move(keys)),
    limits_(limits),
    replay_(limits.replay_window) {
  // Protobuf logs every undecodable string field to stderr: anyone able to
  // send us datagrams could flood the log. Drops are counted instead.
  static std::once_flag quiet;
  std::call_once(quiet, [] { google::protobuf::SetLogHandler(nullptr); });
}

void bridge_state::count_kind(const wire::Message& m, bool sent) {
  if (m.has_bundle()) {
    for (const auto& part : m.bundle().parts())
      count_kind(part, sent);
    return;
  }
  auto& k = counters_.by_kind[topic_of(m)];
  auto bytes = static_cast<std::uint64_t>(m.ByteSizeLong());
  if (sent) {
    ++k.sent;
    k.bytes_sent += bytes;
  } else {
    ++k.received;
    k.bytes_received += bytes;
  }
}

std::optional<std::string> bridge_state::seal(wire::Message m, millis now) {
  m.set_cluster_id(self_.cluster_id);
  m.set_sender_id(self_.node_id);
  m.set_sender_addr(self_.addr);
  m.set_incarnation(self_.incarnation);
  m.set_sequence(next_sequence_++);
  m.set_timestamp_ms(now);
  wire::Envelope env;
  env.set_version(defaults::protocol_version);
  m.SerializeToString(env.mutable_message());
  if (!keys_.empty()) {
    auto sig = keys_.sign(env.message());
    env.set_key_id(std::move(sig.id_bytes));
    env.set_auth_tag(std::move(sig.tag));
  }
  auto bytes = env.SerializeAsString();
  if (bytes.size() > limits_.max_datagram_bytes) {
    ++counters_.send_errors;
    return std::nullopt;
  }
  if (!keys_.empty())
    ++counters_.by_key[keys_.primary_id()].sent;
  if (limits_.bundle_bytes > 0 && bytes.size() > limits_.bundle_bytes)
    ++counters_.over_bundle_bytes_by_body[body_name(m)];
  count_kind(m, true);
  return bytes;
}

std::size_t bundle_budget(const bridge_identity& self,
                          const bridge_limits& limits) {
  // Room for the bundle's header and the envelope around it.
  auto overhead = envelope_bytes(self);
  auto size = std::min(limits.bundle_bytes, limits.max_datagram_bytes);
  return size > overhead ? size - overhead : 0;
}

std::vector<std::string> bridge_state::seal_all(std::vector<wire::Message> parts,
                                                millis now) {
  std::vector<std::string> out;
  for (auto& m : pack_bundles(std::move(parts), bundle_budget(self_, limits_))) {
    bool bundle = m.has_bundle();
    if (auto bytes = seal(std::move(m), now)) {
      out.push_back(std::move(*bytes));
      if (bundle)
        ++counters_.bundles_sent;
    }
  }
  return out;
}

void bridge_state::restore(const replay_floors& floors) {
  for (const auto& [sender, f] : floors)
    replay_.restore(sender, f);
}

std::optional<wire::Message> bridge_state::answer_probe(const wire::Message& probe,
                                                       millis now) {
  if (!probe.has_incarnation_probe())
    return std::nullopt;
  if (now < notices_since_ || now - notices_since_ >= 1000) {
    notices_since_ = now;
    notices_in_second_ = 0;
  }
  if (notices_in_second_ >= limits_.notices_per_second) {
    ++counters_.probes_unanswered;
    return std::nullopt;
  }
  ++notices_in_second_;
  ++counters_.probes_answered;
  // Windows are kept per sender id and address (see open()): any address
  // the id spoke from counts. The address never holds '@'.
  const auto& id = probe.sender_id();
  std::uint64_t highest = 0;
  for (const auto& [sender, f] : replay_.floors())
    if (sender.size() > id.size() && sender[id.size()] == '@'
        && sender.compare(0, id.size(), id) == 0
        && sender.find('@', id.size() + 1) == std::string::npos)
      highest = std::max(highest, f.incarnation);
  wire::Message notice;
  auto* body = notice.mutable_incarnation_notice();
  body->set_id(id);
  body->set_highest(highest);
  body->set_nonce(probe.incarnation_probe().nonce());
  return notice;
}

void bridge_state::count_unknown_key(const std::string& id) {
  auto& ids = counters_.unknown_key_ids;
  auto it = ids.find(id);
  if (it != ids.end()) {
    ++it->second;
    return;
  }
  // Bounded: forged datagrams may name any id. One slot is kept for the
  // ids past the limit.
  if (ids.size() + 1 >= bridge_counters::unknown_key_ids_limit) {
    ++ids["other"];
    return;
  }
  ids.emplace(id, 1);
  unknown_key_notices_.push_back(id);
}

void bridge_state::count_sent(std::size_t bytes, bool ok) {
  if (!ok) {
    ++counters_.send_errors;
    return;
  }
  ++counters_.datagrams_sent;
  counters_.bytes_sent += bytes;
  // Larger than one frame: fragmented, and lost whole when any fragment is.
  if (limits_.bundle_bytes > 0 && bytes > limits_.bundle_bytes)
    ++counters_.sent_over_bundle_bytes;
}

std::string relay_marked(const std::string& datagram, relay_mark mark) {
  wire::Envelope env;
  if (!env.ParseFromString(datagram))
    return {};
  env.set_relay(static_cast<std::uint32_t>(mark));
  return env.SerializeAsString();
}

std::optional<wire::Message> bridge_state::open(const std::string& datagram,
                                                relay_mark* relay) {
  ++counters_.datagrams_received;
  counters_.bytes_received += datagram.size();
  auto drop = [](std::uint64_t& counter) -> std::optional<wire::Message> {
    ++counter;
    return std::nullopt;
  };
  if (datagram.size() > limits_.max_datagram_bytes)
    return drop(counters_.dropped_oversize);
  wire::Envelope env;
  if (!env.ParseFromString(datagram))
    return drop(counters_.dropped_malformed);
  if (env.version() != defaults::protocol_version)
    return drop(counters_.dropped_version);
  // Authenticate before parsing the inner message: forged bytes reach no
  // parser. A datagram names its key (an older sender's does not: every
  // key is tried).
  auto verdict = keys_.verify(env.key_id(), env.message(), env.auth_tag());
  if (!verdict.ok) {
    if (verdict.unknown_id)
      count_unknown_key(verdict.id);
    return drop(counters_.dropped_unauthenticated);
  }
  // Counted under its key once it passed every check.
  auto accepted = [&] {
    ++counters_.accepted;
    if (!verdict.id.empty())
      ++counters_.by_key[verdict.id].received;
  };
  wire::Message m;
  if (!m.ParseFromString(env.message()) || m.sender_id().empty()
      || m.sequence() == 0 || m.body_case() == wire::Message::BODY_NOT_SET
      || !well_formed_bundle(m))
    return drop(counters_.dropped_malformed);
  if (m.cluster_id() != self_.cluster_id)
    return drop(counters_.dropped_cluster);
  if (m.sender_id() == self_.node_id)
    return drop(counters_.dropped_self);
  if (m.has_incarnation_notice() && m.incarnation_notice().id().empty())
    return drop(counters_.dropped_malformed);
  if (m.has_incarnation_probe()) {
    // It asserts nothing, so a stale or replayed one costs only an answer
    // (rate-limited); recording it would let a restarted node's probe
    // (incarnation 0) or the node's later traffic look replayed.
    accepted();
    count_kind(m, false);
    return m;
  }
  // Per sender id and address: two nodes started with one id keep separate
  // windows, so the newcomer's higher incarnation cannot make the first
  // node's datagrams look stale before membership has judged the clash.
  auto fresh = replay_.check_and_record(m.sender_id() + '@' + m.sender_addr(),
                                        m.incarnation(), m.sequence());
  if (fresh == replay_window::verdict::stale_incarnation)
    return drop(counters_.dropped_stale_incarnation);
  if (fresh != replay_window::verdict::fresh)
    return drop(counters_.dropped_replayed);
  accepted();
  count_kind(m, false);
  if (m.has_bundle())
    ++counters_.bundles_received;
  if (relay)
    *relay = env.relay() <= static_cast<std::uint32_t>(relay_mark::relayed)
               ? static_cast<relay_mark>(env.relay())
               : relay_mark::none; // a mark from a later version: read only
  return m;
}

} // namespace dice
