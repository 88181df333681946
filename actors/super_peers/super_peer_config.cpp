#include "super_peers/super_peer_config.hpp"

#include <cmath>
#include <stdexcept>

namespace dice {

std::size_t super_peer_config::wanted(std::size_t live) const {
  switch (mode) {
    case super_peer_mode::off:
      return 0;
    case super_peer_mode::automatic: {
      // Integer ceil(sqrt(live)): no rounding surprises at perfect squares.
      auto root = static_cast<std::size_t>(std::sqrt(static_cast<double>(live)));
      while (root * root > live)
        --root;
      while (root * root < live)
        ++root;
      return root;
    }
    case super_peer_mode::fixed:
      break;
  }
  return count;
}

super_peer_config parse_super_peers(const std::string& text) {
  super_peer_config cfg;
  if (text == "off")
    return cfg;
  if (text == "auto") {
    cfg.mode = super_peer_mode::automatic;
    return cfg;
  }
  auto bad = [&text] {
    return std::invalid_argument("--super-peers: '" + text
                                 + "' is not auto, off or a count 1..65535");
  };
  if (text.empty() || text.size() > 5
      || text.find_first_not_of("0123456789") != std::string::npos)
    throw bad();
  auto n = std::stoul(text);
  if (n < 1 || n > 65'535)
    throw bad();
  cfg.mode = super_peer_mode::fixed;
  cfg.count = n;
  return cfg;
}

std::string to_string(const super_peer_config& cfg) {
  switch (cfg.mode) {
    case super_peer_mode::off:
      return "off";
    case super_peer_mode::automatic:
      return "auto";
    case super_peer_mode::fixed:
      break;
  }
  return std::to_string(cfg.count);
}

} // namespace dice
