#include "common/time.hpp"

#include <chrono>

namespace dice {

millis wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

} // namespace dice
