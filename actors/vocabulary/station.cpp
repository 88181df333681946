#include "vocabulary/station.hpp"

namespace dice {

std::uint64_t subsystem_seed(std::uint64_t seed, station s) {
  // splitmix64 of (seed, stream): an independent stream per subsystem.
  auto stream = static_cast<std::uint64_t>(s) + 1;
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * stream;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

} // namespace dice
