#pragma once
// A UDP/TCP endpoint written as HOST:PORT (IPv4 dotted quad or "localhost").
#include <cstdint>
#include <optional>
#include <string>

namespace dice {

struct endpoint {
  std::string host;
  std::uint16_t port = 0;

  std::string to_string() const;
  bool operator==(const endpoint& other) const {
    return host == other.host && port == other.port;
  }
  bool operator<(const endpoint& other) const {
    return host < other.host || (host == other.host && port < other.port);
  }
};

/// Parses HOST:PORT. On failure returns nullopt and sets `error` to a
/// one-line reason naming the bad part.
std::optional<endpoint> parse_endpoint(const std::string& text,
                                       std::string* error = nullptr);

/// True for 127.0.0.0/8 and "localhost".
bool is_loopback(const endpoint& ep);

} // namespace dice
