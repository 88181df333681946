#include "broadcast_bridge/topic.hpp"

#include <google/protobuf/descriptor.h>

namespace dice {

std::string topic_of(const wire::Message& m) {
  using M = wire::Message;
  switch (m.body_case()) {
    case M::kHeartbeat:
    case M::kConnect:
    case M::kConnectRep:
    case M::kIdInUse:
      return "membership";
    case M::kIncarnationProbe:  // answered by the bridge itself
    case M::kIncarnationNotice: // taken by a starting node's probe only
      return "identity";
    case M::kSyncRequest:
    case M::kSyncReply:
      return "sync";
    case M::kElection:
      return "election";
    case M::kTesterHello:
      return "tester";
    case M::kMutex:
      return "mutex";
    case M::kCausalEvent:
    case M::kCausalDigest:
      return "causal";
    case M::BODY_NOT_SET:
    case M::kBundle: // routed part by part, after unbundle()
      return "";
    default:
      return "queue";
  }
}

std::string body_name(const wire::Message& m) {
  const auto* field =
    wire::Message::descriptor()->FindFieldByNumber(m.body_case());
  return field ? field->name() : std::string{};
}

} // namespace dice
