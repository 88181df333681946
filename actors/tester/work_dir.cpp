#include "tester/work_dir.hpp"

#include <filesystem>
#include <vector>

#include "tester/sandbox.hpp"

namespace fs = std::filesystem;

namespace dice {

std::size_t sweep_stale_workspaces(const std::string& work_dir) {
  std::vector<std::string> stale;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(work_dir, ec)) {
    auto name = e.path().filename().string();
    if ((name.rfind("ws-", 0) == 0 || name.rfind("clone-", 0) == 0)
        && e.is_directory(ec) && !e.is_symlink(ec))
      stale.push_back(e.path().string());
  }
  std::size_t removed = 0;
  for (auto& dir : stale)
    removed += remove_tree(dir) ? 1 : 0;
  return removed;
}

} // namespace dice
