#include "ranking/adaptive_prefetch.hpp"

#include <algorithm>
#include <cmath>

namespace dice {

adaptive_prefetch::adaptive_prefetch(adaptive_prefetch_config cfg)
  : cfg_(cfg), current_(cfg.least) {
  cfg_.most = std::max(cfg_.most, cfg_.least);
}

std::size_t adaptive_prefetch::fitting(double budget) const {
  if (mean_ms_ * static_cast<double>(cfg_.most) <= budget)
    return cfg_.most;
  auto n = static_cast<std::size_t>(std::floor(budget / mean_ms_));
  return std::clamp(n, cfg_.least, cfg_.most);
}

bool adaptive_prefetch::ran(millis ms) {
  auto x = static_cast<double>(std::max<millis>(ms, 0));
  // A mean over about the last 8 executions: one slow one moves it little.
  mean_ms_ = mean_ms_ < 0 ? x : mean_ms_ + (x - mean_ms_) / 8;
  // Up once the budget holds one more; down only once a half again larger
  // budget no longer holds them all, so a mean near a step does not
  // change the advertised seats at every execution.
  auto before = current_;
  if (auto up = fitting(static_cast<double>(cfg_.budget_ms)); up > current_)
    current_ = up;
  else if (auto down = fitting(1.5 * static_cast<double>(cfg_.budget_ms));
           down < current_)
    current_ = down;
  return current_ != before;
}

} // namespace dice
