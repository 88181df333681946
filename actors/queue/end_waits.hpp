#pragma once
// Who waits for which task to end: the long polls of GET /tasks/{id}
// ?wait_ms=N, held by the queue's facade. A wait is a ticket the facade
// maps to a response promise; it is taken once, either when its task ends
// or when its time is up, so each promise is answered once. Plain class
// (no CAF, no clock: the facade times the waits), not thread-safe.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dice {

class end_waits {
public:
  using ticket = std::uint64_t;

  /// Waits held at once; beyond it a wait is refused (answered at once).
  static constexpr std::size_t default_limit = 65'536;

  explicit end_waits(std::size_t limit = default_limit) : limit_(limit) {}

  /// A wait for task `id` to end: its ticket, or nullopt at the limit.
  std::optional<ticket> add(const std::string& id);
  /// Task `id` ended: the tickets that waited for it, no longer waiting.
  std::vector<ticket> take(const std::string& id);
  /// The wait's time is up (or its task was found ended): the id of the
  /// task it still waited for, and it no longer does; nullopt if it did not.
  std::optional<std::string> take(ticket t);

  std::size_t size() const { return task_of_.size(); }

private:
  std::size_t limit_;
  ticket next_ = 1;
  std::map<ticket, std::string> task_of_;
  std::map<std::string, std::set<ticket>> waits_on_;
};

} // namespace dice
