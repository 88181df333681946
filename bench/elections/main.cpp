// Messages and virtual time of one election against the number of nodes,
// for every algorithm, in the deterministic simulation (1 ms per hop, no
// faults), beside the cost the theory of seed 002 predicts.
//
//   bench_elections [--csv PATH] [--sizes 4,8,16,...]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "simulation/election_sim.hpp"

using namespace dice;

namespace {

struct scenario {
  std::string algorithm;
  std::string arrangement; // which nodes start, in what ring order
  std::string theory;      // the formula of seed 002 (or of the algorithm)
  std::function<double(double)> expected;
  /// Sets up the trigger on an agreed cluster.
  std::function<void(election_sim&)> trigger;
  bool descending = false;
  std::size_t echo_radius = 0;
  std::size_t max_n = 1'000'000;
};

double n_log_n(double n) { return n * std::log2(n); }

void all_start(election_sim& sim) {
  for (const auto& id : sim.ids())
    sim.start_election(id);
}

void highest_starts(election_sim& sim) { sim.start_election(sim.ids().back()); }
void middle_starts(election_sim& sim) {
  sim.start_election(sim.ids()[sim.ids().size() / 2]);
}

/// The coordinator crashes; only the highest survivor notices (bully best).
void crash_highest_notices(election_sim& sim) {
  auto coord = *sim.coordinator_of(sim.ids().front());
  sim.crash(coord);
  auto live = sim.live();
  sim.feed_view(live.back());
}

/// The coordinator crashes and every survivor notices at once.
void crash_all_notice(election_sim& sim) {
  auto coord = *sim.coordinator_of(sim.ids().front());
  sim.crash(coord);
  sim.feed_views();
}

std::vector<scenario> scenarios() {
  auto sq = [](double n) { return n * n; };
  auto two_n = [](double n) { return 2 * n; };
  return {
    {"bully", "crash, highest notices", "6(N-2)", [](double n) {
       return 6 * (n - 2); }, crash_highest_notices},
    {"bully", "crash, all notice", "O(N^2): (N-2)(N+5)", [](double n) {
       return (n - 2) * (n + 5); }, crash_all_notice},
    {"ring", "highest starts", "2N", two_n, highest_starts},
    {"ring", "middle starts", "2N..3N", [](double n) { return 2.5 * n; },
     middle_starts},
    {"ring", "all start, ascending", "3N-1", [](double n) { return 3 * n - 1; },
     all_start},
    {"ring", "all start, descending", "O(N^2): N(N-1)/2+2N",
     [](double n) { return n * (n - 1) / 2 + 2 * n; }, all_start, true},
    {"hs", "highest starts", "O(N log N)", n_log_n, highest_starts},
    {"hs", "all start", "O(N log N)", n_log_n, all_start},
    {"invitation", "crash, all recover", "O(N^2): 2N^2", [](double n) {
       return 2 * n * n; },
     crash_all_notice},
    // Echo: Election and Ack on every edge but the tree's, plus N-1 Leader.
    {"echo", "one source, all neighbours", "(N-1)(2N-1)", [](double n) {
       return (n - 1) * (2 * n - 1); }, middle_starts},
    {"echo", "one source, radius 2", "7N+1", [](double n) {
       return 7 * n + 1; }, middle_starts, false, 2},
    {"echo", "all start, radius 2", "O(N^2)", sq, all_start, false, 2},
  };
}

struct result {
  std::uint64_t messages = 0;
  millis time_ms = 0;
  bool agreed = false;
};

result run(const scenario& s, std::size_t n) {
  election_sim_config cfg;
  cfg.algorithm = s.algorithm;
  cfg.nodes = n;
  cfg.seed = 42;
  cfg.faults = {0, 0, 1, 1};
  cfg.auto_views = false;
  cfg.election.ring_descending = s.descending;
  cfg.election.echo_radius = s.echo_radius;
  for (std::size_t i = 0; i < n; ++i) // distinct capacities, best mid-ring
    cfg.capacities.push_back(static_cast<std::uint32_t>((i * 37) % n));
  election_sim sim{cfg};
  if (!sim.run_until_agreed(600'000))
    return {};
  sim.run_until(sim.now() + 10); // let the announcement finish
  auto m0 = sim.messages();
  auto t0 = sim.now();
  s.trigger(sim);
  result r;
  auto t = sim.run_until_agreed(t0 + 600'000);
  r.agreed = t.has_value() && sim.violation().empty();
  r.time_ms = sim.now() - t0;
  // Count the election, not the steady-state checks that follow.
  r.messages = sim.messages() - m0;
  return r;
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> out;
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(std::stoul(item));
  return out;
}

} // namespace

int main(int argc, char** argv) {
  std::string csv_path;
  std::vector<std::size_t> sizes{4, 8, 16, 32, 64, 128, 256};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else if (a == "--sizes" && i + 1 < argc) {
      try {
        sizes = parse_sizes(argv[++i]);
      } catch (const std::exception&) {
        std::cerr << "bench_elections: --sizes wants numbers like 4,8,16\n";
        return 2;
      }
    } else {
      std::cerr << "usage: bench_elections [--csv PATH] [--sizes 4,8,...]\n";
      return 2;
    }
  }
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    if (!csv) {
      std::cerr << "bench_elections: cannot write " << csv_path << "\n";
      return 1;
    }
    csv << "algorithm,arrangement,n,messages,virtual_ms,theory,theory_value,"
           "ratio,agreed\n";
  }
  std::printf("| algorithm | arrangement | N | messages | virtual ms | theory "
              "| theory value | messages/theory |\n|---|---|---|---|---|---|---|"
              "---|\n");
  bool all_agreed = true;
  for (const auto& s : scenarios())
    for (auto n : sizes) {
      if (n > s.max_n)
        continue;
      auto r = run(s, n);
      auto expect = s.expected(static_cast<double>(n));
      auto ratio = static_cast<double>(r.messages) / expect;
      all_agreed = all_agreed && r.agreed;
      std::printf("| %s | %s | %zu | %llu | %lld | %s | %.0f | %.2f%s |\n",
                  s.algorithm.c_str(), s.arrangement.c_str(), n,
                  static_cast<unsigned long long>(r.messages),
                  static_cast<long long>(r.time_ms), s.theory.c_str(), expect,
                  ratio, r.agreed ? "" : " (no agreement)");
      std::fflush(stdout);
      if (csv)
        csv << s.algorithm << ",\"" << s.arrangement << "\"," << n << ','
            << r.messages << ',' << r.time_ms << ",\"" << s.theory << "\","
            << expect << ',' << ratio << ',' << (r.agreed ? 1 : 0) << '\n';
    }
  return all_agreed ? 0 : 1;
}
