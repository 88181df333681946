#pragma once
// Who waits for which task's end, and the ends already seen, so that an
// await answers whether it comes before or after the end. The front actor
// (front_actor.hpp) keeps one; a waiter is a ticket it maps to a response
// promise, owned by the asking actor so that the waits of an actor that
// stopped are dropped. Plain class (no CAF), not thread-safe.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dice/task.hpp"

namespace dice::embed {

class task_ends {
public:
  using ticket = std::uint64_t;
  using owner = std::uint64_t; // the asking actor's id

  /// Ends remembered (the oldest are forgotten beyond it) and waits held at
  /// once (beyond it an await is refused as busy).
  static constexpr std::size_t default_ended_limit = 65'536;
  static constexpr std::size_t default_waiting_limit = 65'536;

  explicit task_ends(std::size_t ended_limit = default_ended_limit,
                     std::size_t waiting_limit = default_waiting_limit)
    : ended_limit_(ended_limit), waiting_limit_(waiting_limit) {}

  /// The end of task `id`, if seen and still remembered.
  std::optional<task_event> end_of(const std::string& id) const;
  /// `who` waits for the end of `id`: its ticket, or nullopt at the limit.
  std::optional<ticket> wait(const std::string& id, owner who);
  /// Learns an event. If it ends its task: remembered, and the tickets of
  /// those who waited for it (forgotten here) are returned.
  std::vector<ticket> learn(const task_event& ev);
  /// `who` stopped: its tickets, forgotten.
  std::vector<ticket> drop(owner who);
  /// Every ticket, forgotten (the node stops).
  std::vector<ticket> clear();

  std::size_t remembered() const { return ended_.size(); }
  std::size_t waiting() const { return waits_.size(); }

private:
  struct wait_entry {
    std::string id;
    owner who;
  };
  void forget(ticket t);
  // A copy of an index entry's tickets, forgotten (the entry goes with them).
  std::vector<ticket> forget_all(std::set<ticket> tickets);

  std::size_t ended_limit_;
  std::size_t waiting_limit_;
  ticket next_ = 1;
  std::map<std::string, task_event> ended_;
  std::deque<std::string> order_; // ended_ keys, oldest first
  std::map<ticket, wait_entry> waits_;
  std::map<std::string, std::set<ticket>> by_task_;
  std::map<owner, std::set<ticket>> by_owner_;
};

} // namespace dice::embed
