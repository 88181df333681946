#pragma once
// Runs a test runner as a child process, apart from the node: its own
// process group (a timeout or cancel kills everything it started), a
// working directory of its own, only the environment given, no descriptor
// of the node's (sockets, journal) and, when the node runs as root, as an
// unprivileged user. stdout and stderr are captured together up to a cap;
// the rest is read and dropped so the child never blocks on a full pipe.
#include <cstddef>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/time.hpp"
#include "executor/execution.hpp"

namespace dice {

struct sandbox_request {
  std::vector<std::string> argv;  // argv[0] is looked up in the env's PATH
  std::string cwd;
  std::vector<std::string> env;   // NAME=value, the whole environment
  millis timeout_ms = 0;
  std::size_t max_output_bytes = 0;
  /// Run as this user and group instead (only when the node is root).
  bool drop_privileges = false;
  uid_t uid = 65534;
  gid_t gid = 65534;
};

struct sandbox_outcome {
  bool started = false;
  std::string error;      // why it did not start
  int status = 0;         // as waitpid gives it
  bool timed_out = false;
  bool canceled = false;
  std::string output;
  std::size_t dropped = 0; // output bytes beyond the cap
  bool exited_ok() const;
  /// "exit status 1", "killed by signal Aborted", "timed out after 5000 ms".
  std::string describe(millis timeout_ms) const;
};

sandbox_outcome run_sandboxed(const sandbox_request& req, const cancel_token& cancel);

/// Gives `path` and everything under it to `uid`/`gid` (no symlink is
/// followed), so a dropped-privilege runner can write its workspace.
void give_tree(const std::string& path, uid_t uid, gid_t gid);

/// Removes `path` and everything under it, first making every directory
/// writable (a test may leave read-only ones). True when nothing is left.
bool remove_tree(const std::string& path);

} // namespace dice
