#include "broadcast_bridge/bundle.hpp"

#include <utility>

namespace dice {

namespace {

// A part's cost inside a bundle: its bytes plus field tag and length.
std::size_t packed_size(const wire::Message& part) {
  return part.ByteSizeLong() + 6;
}

// A bundle, and the identity probe and notice (see dice.proto), travel
// alone.
bool never_bundled(const wire::Message& m) {
  return m.has_bundle() || m.has_incarnation_probe()
         || m.has_incarnation_notice();
}

wire::Message wrap(std::vector<wire::Message>& group) {
  if (group.size() == 1)
    return std::move(group.front());
  wire::Message m;
  auto* parts = m.mutable_bundle()->mutable_parts();
  parts->Reserve(static_cast<int>(group.size()));
  for (auto& p : group)
    *parts->Add() = std::move(p);
  return m;
}

} // namespace

std::vector<wire::Message> pack_bundles(std::vector<wire::Message> parts,
                                        std::size_t budget) {
  std::vector<wire::Message> out;
  std::vector<wire::Message> group;
  std::size_t used = 0;
  for (auto& p : parts) {
    auto size = packed_size(p);
    if (never_bundled(p)) {
      if (!group.empty())
        out.push_back(wrap(group));
      group.clear();
      used = 0;
      out.push_back(std::move(p));
      continue;
    }
    if (!group.empty() && used + size > budget) {
      out.push_back(wrap(group));
      group.clear();
      used = 0;
    }
    used += size;
    group.push_back(std::move(p));
  }
  if (!group.empty())
    out.push_back(wrap(group));
  return out;
}

bool well_formed_bundle(const wire::Message& m) {
  if (!m.has_bundle())
    return true;
  if (m.bundle().parts_size() == 0)
    return false;
  for (const auto& p : m.bundle().parts())
    if (p.body_case() == wire::Message::BODY_NOT_SET || never_bundled(p))
      return false;
  return true;
}

std::vector<wire::Message> unbundle(wire::Message m) {
  std::vector<wire::Message> out;
  if (!m.has_bundle()) {
    out.push_back(std::move(m));
    return out;
  }
  auto* parts = m.mutable_bundle()->mutable_parts();
  out.reserve(static_cast<std::size_t>(parts->size()));
  for (auto& p : *parts) {
    // The body is the part's; the header is always the authenticated
    // bundle's, whatever header fields a sender put in the part.
    wire::Message one = std::move(p);
    one.set_cluster_id(m.cluster_id());
    one.set_sender_id(m.sender_id());
    one.set_sender_addr(m.sender_addr());
    one.set_incarnation(m.incarnation());
    one.set_sequence(m.sequence());
    one.set_timestamp_ms(m.timestamp_ms());
    out.push_back(std::move(one));
  }
  return out;
}

} // namespace dice
