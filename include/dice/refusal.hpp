#pragma once
// Why a node refused a request made through its actor handle
// (dice/actors.hpp): the code of the error it answers with, whose text is a
// one-line reason. Plain (no CAF).
#include <cstdint>

namespace dice::embed {

enum class refusal : std::uint8_t {
  unknown_kind = 1, // neither this node nor a live member runs such a kind
  oversize,         // the payload (or a message's data) is over its limit
  invalid,          // another bad argument: locks, policy, topic, project
  busy,             // the node could not take it now: retry later
};

} // namespace dice::embed
