#include "executor/parent_env.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include <nlohmann/json.hpp>

extern char** environ;

namespace dice {

namespace {

constexpr std::size_t max_env_result = 64 * 1024;

bool is_ours(const char* var) {
  return std::strncmp(var, "DICE_PARENT_", 12) == 0;
}

// Writes `text` to a fresh file under $TMPDIR; its path, or "" and `error`.
std::string write_temp(const std::string& text, std::string& error) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp")
                     + "/dice-parents-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    error = "shell: cannot write the parents' results: " + std::string(std::strerror(errno));
    return {};
  }
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "shell: cannot write the parents' results: " + std::string(std::strerror(errno));
      ::close(fd);
      ::unlink(path.c_str());
      return {};
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return path;
}

} // namespace

parent_env::parent_env(const std::vector<parent_end>& parents) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (parents.empty() || !is_ours(*e))
      pointers_.push_back(*e);
  if (!parents.empty()) {
    std::string ids;
    auto all = nlohmann::json::array();
    for (const auto& p : parents) {
      ids += (ids.empty() ? "" : " ") + p.task_id;
      nlohmann::json j{{"id", p.task_id}, {"state", p.state}};
      j[p.state == "done" ? "result" : "reason"] = p.result_or_reason;
      all.push_back(std::move(j));
    }
    vars_.push_back("DICE_PARENT_IDS=" + ids);
    const auto& first = parents.front().result_or_reason;
    if (parents.front().state == "done" && first.size() <= max_env_result
        && first.find('\0') == std::string::npos)
      vars_.push_back("DICE_PARENT_RESULT=" + first);
    // Results are bytes: what is not UTF-8 is replaced, not refused.
    file_ = write_temp(all.dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace),
                       error_);
    if (!file_.empty())
      vars_.push_back("DICE_PARENT_RESULTS_FILE=" + file_);
  }
  for (auto& v : vars_)
    pointers_.push_back(v.data());
  pointers_.push_back(nullptr);
}

parent_env::~parent_env() {
  if (!file_.empty())
    ::unlink(file_.c_str());
}

} // namespace dice
