#include "common/endpoint.hpp"

#include <arpa/inet.h>

namespace dice {

std::string endpoint::to_string() const {
  return host + ":" + std::to_string(port);
}

std::optional<endpoint> parse_endpoint(const std::string& text,
                                       std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<endpoint> {
    if (error)
      *error = "malformed address '" + text + "': " + why;
    return std::nullopt;
  };
  auto colon = text.rfind(':');
  if (colon == std::string::npos)
    return fail("expected HOST:PORT");
  endpoint ep;
  ep.host = text.substr(0, colon);
  auto port_text = text.substr(colon + 1);
  if (ep.host == "localhost")
    ep.host = "127.0.0.1";
  in_addr parsed{};
  if (ep.host.empty() || inet_pton(AF_INET, ep.host.c_str(), &parsed) != 1)
    return fail("host must be an IPv4 address or localhost");
  if (port_text.empty() || port_text.size() > 5
      || port_text.find_first_not_of("0123456789") != std::string::npos)
    return fail("port must be a number from 0 to 65535");
  auto port = std::stoul(port_text);
  if (port > 65535)
    return fail("port must be a number from 0 to 65535");
  ep.port = static_cast<std::uint16_t>(port);
  return ep;
}

bool is_loopback(const endpoint& ep) {
  return ep.host.rfind("127.", 0) == 0;
}

} // namespace dice
