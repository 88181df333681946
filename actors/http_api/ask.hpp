#pragma once
// Asking an actor from an HTTP handler thread: a blocking request with a
// timeout, so a busy or stopped node answers 503 instead of hanging a client.
#include <chrono>
#include <optional>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

namespace dice {

constexpr auto http_ask_timeout = std::chrono::seconds(5);

/// The reply of `who` to `xs...`, or nullopt with `error` set.
template <class T, class Handle, class... Ts>
std::optional<T> ask(caf::actor_system& sys, const Handle& who,
                     std::string& error, Ts&&... xs) {
  std::optional<T> out;
  caf::scoped_actor self{sys};
  self->request(who, http_ask_timeout, std::forward<Ts>(xs)...)
    .receive([&](T& value) { out = std::move(value); },
             [&](caf::error& err) { error = sys.render(err); });
  return out;
}

} // namespace dice
