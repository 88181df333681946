#pragma once
// Whether a subsystem's machine takes an event: what a batch or a mailbox
// may hand it. No CAF here.
#include <type_traits>
#include <utility>

#include "common/time.hpp"
#include "queue_node/queue_events.hpp"

namespace dice {

template <class M, class E, class = void>
struct takes : std::false_type {};
template <class M, class E>
struct takes<M, E,
             std::void_t<decltype(std::declval<M&>().on(
               std::declval<const E&>(), millis{},
               std::declval<ev::events&>()))>> : std::true_type {};

} // namespace dice
