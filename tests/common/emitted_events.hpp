#pragma once
// The events of one type among those a state machine emitted: what the
// unit tests of the queue's subsystems check.
#include <variant>
#include <vector>

#include "vocabulary/queue_events.hpp"

namespace dice::test {

template <class E>
std::vector<E> emitted(const ev::events& out) {
  std::vector<E> xs;
  for (const auto& e : out)
    if (auto x = std::get_if<E>(&e))
      xs.push_back(*x);
  return xs;
}

} // namespace dice::test
