#include "tester/sandbox.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dice {

bool sandbox_outcome::exited_ok() const {
  return started && !timed_out && !canceled && WIFEXITED(status)
         && WEXITSTATUS(status) == 0;
}

std::string sandbox_outcome::describe(millis timeout_ms) const {
  if (!started)
    return error;
  if (canceled)
    return "canceled";
  if (timed_out)
    return "timed out after " + std::to_string(timeout_ms) + " ms; process group killed";
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "ended abnormally";
}

namespace {

[[noreturn]] void child(const sandbox_request& req, int out_fd, char* const* argv,
                        char* const* envp, const char* path) {
  // Only async-signal-safe calls from here on: the node has other threads.
  ::setpgid(0, 0);
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull < 0 || ::dup2(devnull, 0) < 0 || ::dup2(out_fd, 1) < 0
      || ::dup2(out_fd, 2) < 0)
    ::_exit(126);
  // None of the node's descriptors (sockets, journal, blob store) stay open.
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  if (req.drop_privileges
      && (::setgroups(0, nullptr) != 0 || ::setgid(req.gid) != 0
          || ::setuid(req.uid) != 0))
    ::_exit(126);
  // After the user changed: the workspace must be reachable as that user.
  if (::chdir(req.cwd.c_str()) != 0)
    ::_exit(126);
  ::execve(path, argv, envp);
  ::_exit(127);
}

/// argv[0] as a path: found in the request's PATH if it has no '/'.
std::string resolve(const sandbox_request& req) {
  const auto& prog = req.argv[0];
  if (prog.find('/') != std::string::npos)
    return prog;
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (auto& kv : req.env)
    if (kv.rfind("PATH=", 0) == 0)
      path = kv.substr(5);
  std::size_t start = 0;
  for (;;) {
    auto colon = path.find(':', start);
    auto candidate = path.substr(start, colon - start) + "/" + prog;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string::npos)
      return {};
    start = colon + 1;
  }
}

} // namespace

sandbox_outcome run_sandboxed(const sandbox_request& req, const cancel_token& cancel) {
  sandbox_outcome out;
  if (req.argv.empty()) {
    out.error = "no program to run";
    return out;
  }
  auto path = resolve(req);
  if (path.empty()) {
    out.error = "cannot find '" + req.argv[0] + "' in PATH";
    return out;
  }
  std::vector<std::string> args = req.argv, env = req.env;
  std::vector<char*> cargv, cenv;
  for (auto& a : args)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : env)
    cenv.push_back(e.data());
  cenv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    out.error = std::string("fork: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0)
    child(req, fds[1], cargv.data(), cenv.data(), path.c_str());
  ::setpgid(pid, pid); // also here: no race with the kill below
  ::close(fds[1]);
  int rd = fds[0];
  out.started = true;
  auto deadline = std::chrono::steady_clock::now()
                  + std::chrono::milliseconds(req.timeout_ms);
  bool reaped = false;
  char buf[8192];
  auto take = [&](const char* data, std::size_t got) {
    auto room = req.max_output_bytes - std::min(req.max_output_bytes, out.output.size());
    auto keep = std::min(got, room);
    out.output.append(data, keep);
    out.dropped += got - keep;
  };
  for (;;) {
    if (cancel.canceled()) {
      out.canceled = true;
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      out.timed_out = true;
      break;
    }
    // The leader's exit ends the run even if a grandchild holds the pipe.
    if (::waitpid(pid, &out.status, WNOHANG) == pid) {
      reaped = true;
      break;
    }
    pollfd p[2] = {{rd, POLLIN, 0}, {cancel.wake_fd(), POLLIN, 0}};
    nfds_t n = rd >= 0 ? 1 : 0;
    if (cancel.wake_fd() >= 0)
      p[n++] = {cancel.wake_fd(), POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
                  .count() + 1;
    // At most 100 ms asleep: the leader's exit is noticed within it.
    if (::poll(p, n, static_cast<int>(std::min<long long>(left, 100))) <= 0 || rd < 0
        || (p[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
      continue;
    auto got = ::read(rd, buf, sizeof(buf));
    if (got > 0) {
      take(buf, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      ::close(rd);
      rd = -1;
    }
  }
  // Whatever the group still runs goes; the leader's pid names the group
  // until it is reaped.
  ::kill(-pid, SIGKILL);
  if (!reaped)
    while (::waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
    }
  if (rd >= 0) { // what was written before the end
    ::fcntl(rd, F_SETFL, O_NONBLOCK);
    ssize_t got;
    while ((got = ::read(rd, buf, sizeof(buf))) > 0)
      take(buf, static_cast<std::size_t>(got));
    ::close(rd);
  }
  return out;
}

void give_tree(const std::string& path, uid_t uid, gid_t gid) {
  std::error_code ec;
  ::lchown(path.c_str(), uid, gid);
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    ::lchown(it->path().c_str(), uid, gid);
}

bool remove_tree(const std::string& path) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path, ec);
  return !fs::exists(path, ec);
}

} // namespace dice
