#pragma once
// dice-node's options: command line first, then the INI file given by
// --config (the command line wins), validated into a node_config.
#include <cstddef>
#include <string>

#include "node/node_config.hpp"

namespace dice {

struct node_options {
  node_config node;
  std::string log_level = "info";
  /// CAF's scheduler: "sharing" (one queue, idle threads block) or
  /// "stealing" (idle threads poll, ~25 ms after each message).
  std::string scheduler_policy = "sharing";
  /// CAF worker threads. Executions run on threads of their own, so the
  /// actors need few; each extra thread costs wake-ups between actors.
  std::size_t scheduler_threads = 2;
  bool help = false;   // --help was given: print `usage` and exit 0
  bool version = false; // --version: print the version and exit 0
  std::string usage;
};

/// Throws std::runtime_error with a one-line reason on any bad input.
node_options parse_node_options(int argc, const char* const* argv);

/// For a node alone on loopback (no --peer), how others join it and how to
/// reach other machines; "" otherwise.
std::string join_hint(const node_config& n);

} // namespace dice
