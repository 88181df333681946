#include "lock_command.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace dice::cli {

namespace {

using clock_type = std::chrono::steady_clock;

/// The lease the node keeps for us between renewals: a killed `dice lock`
/// frees the lock at most this long after it died.
constexpr long long lease_ms = 10'000;
/// Renewals come this often, well inside the lease.
constexpr auto renew_every = std::chrono::milliseconds(lease_ms / 4);

int error(const std::string& why, int code) {
  std::cerr << "dice: error: " << why << "\n";
  return code;
}

std::string holder_of(client& node, const std::string& name) {
  auto r = node.get("/locks");
  if (!r.ok())
    return {};
  for (const auto& l : r.body.value("locks", nlohmann::json::array()))
    if (l.value("lock", "") == name && l["holder"].is_string())
      return l["holder"].get<std::string>();
  return {};
}

/// Starts `command` in its own process group; -1 on failure.
pid_t spawn(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& w : command)
    argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execvp(argv[0], argv.data());
    std::cerr << "dice: error: cannot run " << command[0] << ": "
              << std::strerror(errno) << "\n";
    _exit(127);
  }
  return pid;
}

int exit_status(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

} // namespace

int lock_command(client& node, const std::string& name, double timeout_s,
                 const std::vector<std::string>& command, bool json) {
  if (command.empty())
    return error("usage: dice lock NAME [--timeout S] -- COMMAND [ARGS...]", 2);
  auto path = "/locks/" + name;
  auto deadline = clock_type::now()
                  + std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  std::string token;
  // Wait: each request waits up to a second at the node, then we ask again
  // (which renews our place in the line).
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - clock_type::now()).count();
    nlohmann::json body{{"wait_ms", std::max<long long>(0, std::min<long long>(left, 1000))},
                        {"lease_ms", lease_ms}};
    if (!token.empty())
      body["token"] = token;
    auto r = node.post(path, body);
    if (!r.ok() && r.status != 202)
      return error(r.error, 1);
    token = r.body.value("token", token);
    if (r.body.value("held", false))
      break;
    if (clock_type::now() >= deadline) {
      node.del(path + "?token=" + token);
      auto holder = holder_of(node, name);
      return error("timed out after " + std::to_string(static_cast<long long>(timeout_s))
                   + " s waiting for lock '" + name + "'"
                   + (holder.empty() ? "" : " (held by " + holder + ")"), 3);
    }
  }
  if (json)
    std::cout << nlohmann::json{{"lock", name}, {"held", true}}.dump() << std::endl;
  pid_t pid = spawn(command);
  if (pid < 0) {
    node.del(path + "?token=" + token);
    return error(std::string("cannot start the command: ") + std::strerror(errno), 1);
  }
  int status = 0;
  auto renew_at = clock_type::now() + renew_every;
  bool lost = false;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (clock_type::now() >= renew_at) {
      auto r = node.post(path, {{"token", token}, {"wait_ms", 0}, {"lease_ms", lease_ms}});
      if (r.status == 410 || (r.ok() && !r.body.value("held", false))) {
        lost = true; // the cluster may give it to another: stop at once
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      renew_at = clock_type::now() + renew_every;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (lost)
    return error("lost lock '" + name + "' while the command ran: it was killed", 4);
  auto r = node.del(path + "?token=" + token);
  if (!r.ok())
    std::cerr << "dice: warning: releasing lock '" << name << "': " << r.error
              << " (it lapses within " << lease_ms / 1000 << " s)\n";
  return exit_status(status);
}

int show_locks(client& node, bool json) {
  auto r = node.get("/locks");
  if (!r.ok())
    return error(r.error, 1);
  if (json) {
    std::cout << r.body.dump() << "\n";
    return 0;
  }
  std::cout << "algorithm: " << r.body.value("algorithm", "") << "\n"
            << std::left << std::setw(24) << "LOCK" << std::setw(18) << "HOLDER"
            << "WAITERS\n";
  for (const auto& l : r.body.value("locks", nlohmann::json::array())) {
    std::string waiters;
    for (const auto& w : l.value("waiters", nlohmann::json::array()))
      waiters += (waiters.empty() ? "" : " ") + w.get<std::string>();
    std::cout << std::left << std::setw(24) << l.value("lock", "") << std::setw(18)
              << (l["holder"].is_string() ? l["holder"].get<std::string>() : "-")
              << (waiters.empty() ? "-" : waiters) << "\n";
  }
  return 0;
}

} // namespace dice::cli
