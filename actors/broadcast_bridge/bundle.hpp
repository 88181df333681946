#pragma once
// Several messages of one sender in one datagram (wire::Bundle). The bridge
// packs the broadcasts queued at once, so a burst wakes every receiver once
// instead of once per message; receivers take the parts apart again.
#include <cstddef>
#include <vector>

#include "dice.pb.h"

namespace dice {

/// Packs `parts` (bodies only), in order, into as few messages as keep each
/// within `budget` serialized bytes: a single part stays a plain message, a
/// part over budget on its own goes alone (its seal then refuses it), and so
/// do an identity probe and notice, which peers never accept in a bundle.
std::vector<wire::Message> pack_bundles(std::vector<wire::Message> parts,
                                        std::size_t budget);

/// False for a bundle with no parts or with a part that is empty or a bundle.
bool well_formed_bundle(const wire::Message& m);

/// The messages `m` carries: a bundle's parts, each with the bundle's
/// header; anything else is itself.
std::vector<wire::Message> unbundle(wire::Message m);

} // namespace dice
