#include "broadcast_bridge/replay_floors.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/data_dir.hpp"

namespace dice {

std::string encode_replay_floors(const replay_floors& floors) {
  std::string out;
  for (const auto& [sender, f] : floors) {
    if (sender.find('\n') != std::string::npos)
      continue;
    out += std::to_string(f.incarnation) + ' ' + std::to_string(f.sequence)
           + ' ' + sender + '\n';
  }
  return out;
}

replay_floors decode_replay_floors(const std::string& text) {
  replay_floors out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(' ');
    auto b = a == std::string::npos ? a : line.find(' ', a + 1);
    if (b == std::string::npos || b + 1 >= line.size())
      continue;
    try {
      std::size_t used = 0;
      auto inc = std::stoull(line.substr(0, a), &used);
      if (used != a)
        continue;
      auto seq = std::stoull(line.substr(a + 1, b - a - 1), &used);
      if (used != b - a - 1)
        continue;
      out[line.substr(b + 1)] = replay_window::floor{inc, seq};
    } catch (const std::exception&) {
      continue; // not a number, or out of range
    }
  }
  return out;
}

replay_floors load_replay_floors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {};
  std::ostringstream text;
  text << in.rdbuf();
  return decode_replay_floors(text.str());
}

bool save_replay_floors(const std::string& path, const replay_floors& floors) {
  try {
    replace_file(path, encode_replay_floors(floors));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace dice
