#pragma once
// The `shell` task kind: runs an allowed program with arguments taken from
// the payload, with no shell in between (no globbing, no pipes, no `$`).
// Off unless the node's config allows at least one program.
//
// Payload: a JSON array of strings (["/bin/echo", "a b"]) or, if it does not
// start with '[', words split on whitespace ("/bin/echo a b"). argv[0] must
// equal an allow-list entry exactly; a name without '/' is looked up in PATH.
// The child runs in its own process group with stdin from /dev/null; stdout
// and stderr are captured together up to a cap. On timeout or cancel the
// whole group is killed (SIGKILL). Exit status 0 is success (result: the
// output); anything else is a failure whose reason says why.
#include <cstddef>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "executor/execution.hpp"

namespace dice {

struct shell_config {
  std::vector<std::string> allow; // empty: the kind is off
  /// A `shell` task running longer than this is killed (its process group).
  millis timeout_ms = 60'000;
  /// Output (stdout and stderr together) kept of a `shell` task; the rest is
  /// read and dropped so the child never blocks on a full pipe.
  std::size_t max_output_bytes = 16 * 1024;

  bool enabled() const { return !allow.empty(); }
  /// Empty when usable, otherwise a one-line reason naming the option.
  std::string problem() const;
};

/// Splits a shell payload into argv; empty with `error` set on bad input.
std::vector<std::string> shell_argv(const std::string& payload,
                                    std::string& error);

/// Whether this node may run the shell task `payload`: its program is in
/// the allow list. A payload no node could run (not parsable) counts as
/// runnable, so that it fails with its reason instead of waiting for ever.
bool shell_allows(const shell_config& cfg, const std::string& payload);

/// Runs one shell task (called on an executor slot thread); its program
/// learns its parents' ends from its environment (parent_env.hpp).
task_outcome run_shell(const shell_config& cfg, const std::string& payload,
                       const cancel_token& cancel,
                       const std::vector<parent_end>& parents = {});

} // namespace dice
