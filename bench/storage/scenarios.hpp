#pragma once
// Each scenario works in its own directories under `dir` and writes rows.
#include <cstdint>
#include <string>
#include <vector>

#include "report.hpp"

namespace bench {

struct settings {
  std::string dir;                     // a temp dir, removed at the end
  std::vector<std::size_t> per_flush{1, 8, 64};
  std::uint64_t append_tasks = 100000; // per append run, unless time is up
  double append_seconds = 5;           // of store time, per append run
  int rounds = 3;                      // append runs per configuration
  std::vector<std::uint64_t> held{100000, 1000000};
  int kills = 10;                      // kill -9 trials per store
  std::uint64_t seed = 1;
};

void physical(const settings& s, report& out);
void append(const settings& s, report& out);
void scale(const settings& s, report& out);
void kill9(const settings& s, report& out);
void torn_tail(const settings& s, report& out);
void full_disk(const settings& s, report& out);

} // namespace bench
