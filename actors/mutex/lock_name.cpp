#include "mutex/lock_name.hpp"

namespace dice {

std::string lock_name_problem(const std::string& name, const std::string& what) {
  if (name.empty())
    return "a " + what + " must not be empty";
  if (name.size() > max_lock_name_bytes)
    return what + " '" + name.substr(0, max_lock_name_bytes)
           + "...' is longer than " + std::to_string(max_lock_name_bytes)
           + " bytes";
  for (unsigned char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
              || c == ':' || c == '/';
    if (!ok)
      return what + " '" + name
             + "' may hold only letters, digits and - _ . : /";
  }
  return {};
}

std::string lock_list_problem(const std::vector<std::string>& names) {
  if (names.size() > max_task_locks)
    return "a task may name at most " + std::to_string(max_task_locks) + " locks";
  for (const auto& n : names)
    if (auto p = lock_name_problem(n); !p.empty())
      return p;
  return {};
}

} // namespace dice
