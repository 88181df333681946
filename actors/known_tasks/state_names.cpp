#include "known_tasks/state_names.hpp"

#include "known_tasks/task_state.hpp"

namespace dice {

std::string phase_name(wire::TaskPhase phase) {
  switch (phase) {
    case wire::READY: return "ready";
    case wire::RUNNING: return "running";
    case wire::FAILED: return "failed";
    case wire::EXPIRED: return "expired";
    case wire::CANCELED: return "canceled";
    case wire::DONE: return "done";
    case wire::REMOVED: return "removed";
    default: return "unknown";
  }
}

const shown_state shown_states[8] = {
  {"ready", wire::READY, std::nullopt},      {"claimed", wire::RUNNING, true},
  {"running", wire::RUNNING, false},         {"failed", wire::FAILED, std::nullopt},
  {"expired", wire::EXPIRED, std::nullopt},  {"canceled", wire::CANCELED, std::nullopt},
  {"done", wire::DONE, std::nullopt},        {"removed", wire::REMOVED, std::nullopt}};

std::optional<shown_state> parse_state(const std::string& name) {
  for (const auto& s : shown_states)
    if (name == s.name)
      return s;
  return std::nullopt;
}

std::string state_name(const wire::TaskState& state) {
  return claimed_ahead(state) ? "claimed" : phase_name(state.phase());
}

std::size_t count_in(const task_counts& counts, const shown_state& s) {
  auto n = counts.by_phase[static_cast<std::size_t>(s.phase)];
  if (!s.claimed_ahead)
    return n;
  return *s.claimed_ahead ? counts.claimed_ahead : n - counts.claimed_ahead;
}

std::string state_names() {
  std::string out;
  for (const auto& s : shown_states)
    out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

} // namespace dice
