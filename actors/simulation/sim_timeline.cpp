#include "simulation/sim_timeline.hpp"

#include <numeric>

namespace dice {

void sim_timeline::write_csv(std::ostream& out) const {
  out << "t_ms,done,claims_lost,duplicates,up";
  for (const auto& id : nodes)
    out << ',' << id;
  out << '\n';
  for (const auto& s : samples) {
    auto done = std::accumulate(s.done_by.begin(), s.done_by.end(),
                                std::uint64_t{0});
    out << s.at << ',' << done << ',' << s.claims_lost << ',' << s.duplicates
        << ',' << s.up;
    for (auto n : s.done_by)
      out << ',' << n;
    out << '\n';
  }
}

} // namespace dice
