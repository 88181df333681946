#include "common/power_supply.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace dice {

namespace {

std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

std::optional<std::uint32_t> read_battery_level(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> supplies;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    supplies.push_back(it->path());
  std::sort(supplies.begin(), supplies.end()); // BAT0 before BAT1
  for (auto& s : supplies) {
    if (first_line(s / "type") != "Battery")
      continue;
    auto text = first_line(s / "capacity");
    try {
      std::size_t used = 0;
      auto level = std::stol(text, &used);
      if (used > 0 && level >= 0)
        return static_cast<std::uint32_t>(std::min(level, 100L));
    } catch (...) {
      // unreadable capacity: try the next supply
    }
  }
  return std::nullopt;
}

} // namespace dice
