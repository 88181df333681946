#include "executor/shell_kind.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/defaults.hpp"
#include "executor/parent_env.hpp"

namespace dice {

std::string shell_config::problem() const {
  for (const auto& cmd : allow)
    if (cmd.empty() || cmd.find_first_of(" \t\n") != std::string::npos)
      return "--shell-allow: '" + cmd
             + "' is not a program name or path (no spaces, not empty)";
  if (timeout_ms <= 0)
    return "--shell-timeout-ms must be positive";
  if (max_output_bytes == 0 || max_output_bytes > defaults::max_result_bytes)
    return "--shell-max-output-bytes must be from 1 to "
           + std::to_string(defaults::max_result_bytes);
  return {};
}

std::vector<std::string> shell_argv(const std::string& payload,
                                    std::string& error) {
  std::vector<std::string> argv;
  auto first = payload.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && payload[first] == '[') {
    auto j = nlohmann::json::parse(payload, nullptr, false);
    if (j.is_discarded() || !j.is_array()) {
      error = "shell: payload starting with '[' must be a JSON array of strings";
      return {};
    }
    for (const auto& arg : j) {
      if (!arg.is_string()) {
        error = "shell: every element of the JSON array must be a string";
        return {};
      }
      argv.push_back(arg.get<std::string>());
    }
  } else {
    std::istringstream words(payload);
    for (std::string w; words >> w;)
      argv.push_back(w);
  }
  if (argv.empty() || argv[0].empty()) {
    error = "shell: payload names no program";
    return {};
  }
  for (const auto& arg : argv)
    if (arg.find('\0') != std::string::npos) {
      error = "shell: arguments must not contain NUL bytes";
      return {};
    }
  return argv;
}

namespace {

using clock = std::chrono::steady_clock;

// Owns a file descriptor.
struct fd_guard {
  int fd = -1;
  ~fd_guard() { reset(); }
  void reset() {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
};

std::string describe(int status) {
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "ended abnormally";
}

} // namespace

bool shell_allows(const shell_config& cfg, const std::string& payload) {
  std::string error;
  auto argv = shell_argv(payload, error);
  return argv.empty()
         || std::find(cfg.allow.begin(), cfg.allow.end(), argv[0]) != cfg.allow.end();
}

task_outcome run_shell(const shell_config& cfg, const std::string& payload,
                       const cancel_token& cancel,
                       const std::vector<parent_end>& parents) {
  std::string error;
  auto argv = shell_argv(payload, error);
  if (argv.empty())
    return task_outcome::invalid(error);
  if (std::find(cfg.allow.begin(), cfg.allow.end(), argv[0]) == cfg.allow.end())
    return task_outcome::invalid("shell: '" + argv[0].substr(0, 128)
                                 + "' is not in the node's --shell-allow list");
  parent_env env(parents);
  if (!env.error().empty())
    return task_outcome::failure(env.error());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return task_outcome::failure(std::string("shell: pipe: ") + std::strerror(errno));
  fd_guard out{fds[0]};
  fd_guard in{fds[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, in.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, in.fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills everything it started.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> cargv;
  for (auto& a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = 0;
  int rc = argv[0].find('/') == std::string::npos
             ? posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, cargv.data(), env.envp())
             : posix_spawn(&pid, argv[0].c_str(), &actions, &attr, cargv.data(), env.envp());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return task_outcome::failure("shell: cannot run '" + argv[0]
                                 + "': " + std::strerror(rc));
  in.reset(); // only the child writes now: EOF once it (and its group) close

  std::string output;
  std::size_t dropped = 0;
  auto deadline = clock::now() + std::chrono::milliseconds(cfg.timeout_ms);
  std::string stop_reason;
  int status = 0;
  bool reaped = false;
  char buf[4096];
  // Readable when the child exits (Linux 5.3 and later; else -1 and the
  // loop looks every few ms).
  fd_guard exited{static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))};
  for (;;) {
    if (cancel.canceled()) {
      stop_reason = "canceled";
      break;
    }
    auto now = clock::now();
    if (now >= deadline) {
      stop_reason = "shell: timed out after " + std::to_string(cfg.timeout_ms)
                    + " ms; process group killed";
      break;
    }
    if (out.fd < 0) {
      // Output closed: the child is done or about to be.
      auto r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        reaped = true;
        break;
      }
    }
    // Sleep until output, the child's exit, a cancel or the deadline; one
    // wake-up each, where a fixed 10 ms poll woke the thread 100 times a
    // second for as long as the program ran.
    pollfd fds[2];
    nfds_t nfds = 0;
    if (out.fd >= 0)
      fds[nfds++] = {out.fd, POLLIN, 0};
    else if (exited.fd >= 0)
      fds[nfds++] = {exited.fd, POLLIN, 0};
    if (cancel.wake_fd() >= 0)
      fds[nfds++] = {cancel.wake_fd(), POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - now).count() + 1;
    bool blind = cancel.wake_fd() < 0 || (out.fd < 0 && exited.fd < 0);
    auto wait_ms = static_cast<int>(std::min<long long>(left, blind ? 10 : 60'000));
    if (::poll(fds, nfds, wait_ms) <= 0 || out.fd < 0
        || (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
      continue;
    auto n = ::read(out.fd, buf, sizeof(buf));
    if (n > 0) {
      auto keep = std::min<std::size_t>(static_cast<std::size_t>(n),
                                        cfg.max_output_bytes - output.size());
      output.append(buf, keep);
      dropped += static_cast<std::size_t>(n) - keep;
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      out.reset();
    }
  }
  if (!reaped) {
    // The leader is not reaped yet, so its pid still names the group.
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (dropped > 0)
    output += "\n[output truncated: " + std::to_string(dropped)
              + " more bytes dropped]";
  if (!stop_reason.empty())
    return task_outcome::failure(stop_reason);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return task_outcome::success(output);
  auto tail = output.size() > 512 ? output.substr(output.size() - 512) : output;
  return task_outcome::failure("shell: " + argv[0] + ": " + describe(status)
                               + (tail.empty() ? "" : ": " + tail));
}

} // namespace dice
