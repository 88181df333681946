// Messages and virtual time per critical-section entry against the number of
// nodes, for the four mutual exclusion algorithms, in the deterministic
// simulation (1-2 ms per hop, no faults, one resource), beside the figures
// of seed 001: central 3, Ricart-Agrawala 2(n-1), token ring 1 to infinity,
// voting about 3 sqrt(n) for Maekawa's quorums (ours is a majority: ~3n).
// Two workloads: "busy" (every node asks again right after it leaves) and
// "light" (a node asks every 2 s on average).
//
//   bench_mutex [--csv PATH] [--sizes 4,8,16,32,64] [--seconds S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "simulation/mutex_sim.hpp"

using namespace dice;

namespace {

struct workload {
  std::string name;
  millis think_ms;
  millis hold_ms;
};

std::string seed_figure(const std::string& algorithm) {
  if (algorithm == "central")
    return "3";
  if (algorithm == "ricart-agrawala")
    return "2(n-1)";
  if (algorithm == "token-ring")
    return "1..inf";
  return "3 sqrt(n) (Maekawa)";
}

double seed_value(const std::string& algorithm, double n) {
  if (algorithm == "central")
    return 3;
  if (algorithm == "ricart-agrawala")
    return 2 * (n - 1);
  if (algorithm == "token-ring")
    return 1;
  return 3 * std::sqrt(n);
}

std::vector<std::size_t> parse_sizes(const std::string& s) {
  std::vector<std::size_t> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(static_cast<std::size_t>(std::stoul(item)));
  return out;
}

} // namespace

int main(int argc, char** argv) {
  std::string csv_path;
  std::vector<std::size_t> sizes{4, 8, 16, 32, 64};
  millis seconds = 60;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc)
      csv_path = argv[++i];
    else if (a == "--sizes" && i + 1 < argc)
      sizes = parse_sizes(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = std::stol(argv[++i]);
    else {
      std::cerr << "usage: bench_mutex [--csv PATH] [--sizes 4,8,...] [--seconds S]\n";
      return 2;
    }
  }
  std::vector<workload> workloads{{"busy", 0, 5}, {"light", 1000, 5}};
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "algorithm,workload,n,entries,messages,messages_per_entry,"
           "mean_wait_ms,seed_figure,seed_value\n";
  }
  std::printf("%-16s %-6s %4s %8s %10s %10s %12s  %s\n", "algorithm", "load", "n",
              "entries", "messages", "msg/entry", "wait ms", "seed 001");
  for (const auto& algorithm : mutex_algorithms())
    for (const auto& w : workloads)
      for (auto n : sizes) {
        mutex_sim_config cfg;
        cfg.algorithm = algorithm;
        cfg.nodes = n;
        cfg.seed = 42;
        cfg.resources = 1;
        cfg.think_ms = w.think_ms;
        cfg.hold_ms = w.hold_ms;
        cfg.faults = link_faults{0, 0, 1, 2};
        mutex_sim sim(cfg);
        sim.run_until(seconds * 1000);
        if (!sim.violation().empty()) {
          std::cerr << algorithm << " n=" << n << ": " << sim.violation() << "\n";
          return 1;
        }
        double per_entry = sim.entries() ? static_cast<double>(sim.messages())
                                             / static_cast<double>(sim.entries())
                                         : 0.0;
        std::printf("%-16s %-6s %4zu %8llu %10llu %10.1f %12.1f  %s = %.1f\n",
                    algorithm.c_str(), w.name.c_str(), n,
                    static_cast<unsigned long long>(sim.entries()),
                    static_cast<unsigned long long>(sim.messages()), per_entry,
                    sim.mean_wait_ms(), seed_figure(algorithm).c_str(),
                    seed_value(algorithm, static_cast<double>(n)));
        std::fflush(stdout);
        if (csv)
          csv << algorithm << ',' << w.name << ',' << n << ',' << sim.entries() << ','
              << sim.messages() << ',' << per_entry << ',' << sim.mean_wait_ms() << ','
              << '"' << seed_figure(algorithm) << '"' << ','
              << seed_value(algorithm, static_cast<double>(n)) << '\n';
      }
  return 0;
}
