#pragma once
// What a lock (resource) name may be: short, printable, no spaces, so it
// fits a datagram and reads well in GET /locks and logs.
#include <string>
#include <vector>

namespace dice {

/// Most locks one task may name, and the longest name.
constexpr std::size_t max_task_locks = 16;
constexpr std::size_t max_lock_name_bytes = 64;

/// Empty if `name` is a usable lock name (or event topic: `what`),
/// otherwise why not.
std::string lock_name_problem(const std::string& name,
                              const std::string& what = "lock name");
/// The same for a task's list (each name, their number).
std::string lock_list_problem(const std::vector<std::string>& names);

} // namespace dice
