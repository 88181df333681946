#pragma once
// Which subsystem takes which event, derived rather than listed: a
// subsystem takes exactly the events its machine has an `on` for, and the
// three stations outside the queue (the bridge, the executor, the user)
// take the events named below. The actors of dice-node (one actor per
// subsystem) send by it, and their message types follow from the same `on`
// overloads (queue/queue_interfaces.hpp). A sink offers
// `deliver<station>(event)`; an event goes to its stations in the order of
// the station enum.
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "communication/communication_machine.hpp"
#include "known_tasks/known_tasks_machine.hpp"
#include "vocabulary/queue_events.hpp"
#include "vocabulary/station.hpp"
#include "ranking/ranking_machine.hpp"
#include "ready_queue/ready_queue_machine.hpp"
#include "running_tasks/running_tasks_machine.hpp"
#include "unknown_resolver/unknown_resolver_machine.hpp"

namespace dice {

/// The machine of each subsystem's station.
template <station S>
struct machine_at { using type = void; }; // the bridge, the executor, the user
template <> struct machine_at<station::communication> { using type = communication_machine; };
template <> struct machine_at<station::known_tasks> { using type = known_tasks_machine; };
template <> struct machine_at<station::ready_queue> { using type = ready_queue_machine; };
template <> struct machine_at<station::ranking> { using type = ranking_machine; };
template <> struct machine_at<station::running_tasks> { using type = running_tasks_machine; };
template <> struct machine_at<station::unknown_resolver> { using type = unknown_resolver_machine; };

/// The station whose machine is M.
template <class M, std::size_t I = 0>
constexpr station station_of() {
  constexpr auto s = static_cast<station>(I);
  if constexpr (std::is_same_v<typename machine_at<s>::type, M>)
    return s;
  else
    return station_of<M, I + 1>();
}

/// True if machine M handles E: it has `void on(const E&, millis,
/// ev::events&)`, exactly (no conversion can make it take another event).
template <class M, class E, class = void>
struct takes : std::false_type {};
template <class M, class E>
struct takes<M, E,
             std::void_t<decltype(static_cast<void (M::*)(
                                    const E&, millis, ev::events&)>(&M::on))>>
  : std::true_type {};

template <class M, class = void>
struct ticks : std::false_type {};
template <class M>
struct ticks<M, std::void_t<decltype(std::declval<M&>().tick(
                  millis{}, std::declval<ev::events&>()))>> : std::true_type {};

/// What leaves the queue: datagrams, executions, and what the user hears.
template <class E>
constexpr bool to_bridge_v = std::is_same_v<E, ev::broadcast>
                             || std::is_same_v<E, ev::unicast>;
template <class E>
constexpr bool to_executor_v = std::is_same_v<E, ev::run_order>
                               || std::is_same_v<E, ev::cancel_order>;
template <class E>
constexpr bool to_world_v = std::is_same_v<E, ev::task_changed>
                            || std::is_same_v<E, ev::acknowledged>;

/// True if station S takes event E.
template <station S, class E>
constexpr bool station_takes() {
  if constexpr (S == station::bridge)
    return to_bridge_v<E>;
  else if constexpr (S == station::executor)
    return to_executor_v<E>;
  else if constexpr (S == station::world)
    return to_world_v<E>;
  else
    return takes<typename machine_at<S>::type, E>::value;
}

namespace detail {

template <class E, class Sink, std::size_t... I>
void to_takers(const E& e, Sink& sink, std::index_sequence<I...>) {
  (
    [&] {
      constexpr auto s = static_cast<station>(I);
      if constexpr (station_takes<s, E>())
        sink.template deliver<s>(e);
    }(),
    ...);
}

// The last station (in enum order) that takes E.
template <class E, std::size_t... I>
constexpr std::size_t last_taker(std::index_sequence<I...>) {
  std::size_t last = 0;
  ((last = station_takes<static_cast<station>(I), E>() ? I : last), ...);
  return last;
}

// As to_takers, but the last station gets `e` moved.
template <class E, class Sink, std::size_t... I>
void to_takers_moving(E& e, Sink& sink, std::index_sequence<I...> all) {
  constexpr auto last = last_taker<E>(all);
  (
    [&] {
      constexpr auto s = static_cast<station>(I);
      if constexpr (station_takes<s, E>()) {
        if constexpr (I == last)
          sink.template deliver<s>(std::move(e));
        else
          sink.template deliver<s>(static_cast<const E&>(e));
      }
    }(),
    ...);
}

template <class E, std::size_t... I>
constexpr std::size_t takers(std::index_sequence<I...>) {
  return (std::size_t{station_takes<static_cast<station>(I), E>()} + ...);
}

template <class Variant>
struct all_taken;
template <class... Es>
struct all_taken<std::variant<Es...>> {
  static constexpr bool value =
    ((takers<Es>(std::make_index_sequence<station_count>{}) > 0) && ...);
};

/// The events of `Variant` that M takes, as a tuple type.
template <class M, class Variant>
struct inputs;
template <class M, class... Es>
struct inputs<M, std::variant<Es...>> {
  using type = decltype(std::tuple_cat(
    std::declval<std::conditional_t<takes<M, Es>::value, std::tuple<Es>,
                                    std::tuple<>>>()...));
};

} // namespace detail

// An event nobody takes is a mistake: declare its `on` in the machine that
// should handle it.
static_assert(detail::all_taken<ev::event>::value,
              "every queue event needs a station that takes it");

/// The events machine M takes, as std::tuple<E...>.
template <class M>
using inputs_of = typename detail::inputs<M, ev::event>::type;

/// Hands `e` to every station that takes it.
template <class E, class Sink>
void route_one(const E& e, Sink& sink) {
  detail::to_takers(e, sink, std::make_index_sequence<station_count>{});
}
template <class Sink>
void route(const ev::event& e, Sink& sink) {
  std::visit([&sink](const auto& x) { route_one(x, sink); }, e);
}
/// As route, for an event the caller drops next: the last station that
/// takes it (most events have one) gets it moved rather than copied.
template <class Sink>
void route_out(ev::event& e, Sink& sink) {
  std::visit(
    [&sink](auto& x) {
      detail::to_takers_moving(x, sink, std::make_index_sequence<station_count>{});
    },
    e);
}

} // namespace dice
