#pragma once
// The dice CLI's command line as parsed, and the helpers every command
// uses to check it.
#include <map>
#include <string>
#include <vector>

namespace dice::cli {

struct args {
  std::vector<std::string> words;
  std::map<std::string, std::string> opts; // --name value, or "" for flags
  std::vector<std::string> locks;           // --lock, repeatable
  std::vector<std::string> command;         // after -- (dice lock)
};

/// Prints "dice: error: WHY" to stderr and returns `code`.
int fail(const std::string& why, int code = 1);

/// `text` as an integer in [lo, hi], the whole of it.
bool number(const std::string& text, long long lo, long long hi, long long& out);

/// The bytes of `path`, or of stdin for "-". False, with `error` set, if it
/// cannot be read or exceeds what one task may carry.
bool read_payload(const std::string& path, std::string& out, std::string& error);

} // namespace dice::cli
