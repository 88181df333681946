#pragma once
// The body of POST /events, parsed without a server: bad input is refused
// with a message, and the parser is fuzzed on its own (fuzz/).
#include <cstddef>
#include <optional>
#include <string>

namespace dice {

struct event_request {
  std::string topic;
  std::string data;
};

/// An event must fit one datagram with room for its clock.
constexpr std::size_t max_event_bytes = 16 * 1024;

/// {"topic": NAME, "data": STRING}: NAME as a lock name (lock_name.hpp),
/// data at most max_event_bytes. nullopt with `error` set otherwise.
std::optional<event_request> parse_event_request(const std::string& body,
                                                 std::string& error);

} // namespace dice
