#pragma once
// Asking an actor from an HTTP handler thread: a blocking request with a
// timeout, so a busy or stopped node answers 503 instead of hanging a client.
#include <chrono>
#include <optional>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/message_priority.hpp>
#include <caf/scoped_actor.hpp>

namespace dice {

constexpr auto http_ask_timeout = std::chrono::seconds(5);

/// The reply of `who` to `xs...` within `timeout`, or nullopt with `error`
/// set. `P`: high for read-only questions (stats, lookups), which then
/// pass the protocol's messages queued in the mailbox of the actor asked
/// (the queue's facade asks its subsystems in turn at normal priority:
/// their answers to high-priority requests never came back under CAF 0.17).
template <class T, caf::message_priority P = caf::message_priority::normal,
          class Handle, class Duration, class... Ts>
std::optional<T> ask_within(caf::actor_system& sys, const Handle& who,
                            Duration timeout, std::string& error, Ts&&... xs) {
  std::optional<T> out;
  caf::scoped_actor self{sys};
  self->template request<P>(who, timeout, std::forward<Ts>(xs)...)
    .receive([&](T& value) { out = std::move(value); },
             [&](caf::error& err) { error = sys.render(err); });
  return out;
}

/// An operation (submit, remove, cancel): in order with the protocol's
/// messages.
template <class T, class Handle, class... Ts>
std::optional<T> ask(caf::actor_system& sys, const Handle& who,
                     std::string& error, Ts&&... xs) {
  return ask_within<T>(sys, who, http_ask_timeout, error, std::forward<Ts>(xs)...);
}

/// A read-only question, ahead of the protocol's queued messages.
template <class T, class Handle, class... Ts>
std::optional<T> query(caf::actor_system& sys, const Handle& who,
                       std::string& error, Ts&&... xs) {
  return ask_within<T, caf::message_priority::high>(sys, who, http_ask_timeout,
                                                    error, std::forward<Ts>(xs)...);
}

} // namespace dice
