#include "cli_args.hpp"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace dice::cli {

int fail(const std::string& why, int code) {
  std::cerr << "dice: error: " << why << "\n";
  return code;
}

bool number(const std::string& text, long long lo, long long hi, long long& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size() && out >= lo && out <= hi;
  } catch (...) {
    return false;
  }
}

bool read_payload(const std::string& path, std::string& out, std::string& error) {
  // The node refuses more (a task travels in one datagram); reading stops
  // just past it, so a huge file or an endless pipe is not read whole.
  constexpr std::size_t limit = 32 * 1024;
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) {
      error = "--payload-file: cannot read '" + path + "'";
      return false;
    }
    in = &file;
  }
  out.clear();
  char buf[4096];
  while (out.size() <= limit && in->read(buf, sizeof(buf)).gcount() > 0)
    out.append(buf, static_cast<std::size_t>(in->gcount()));
  if (in->bad()) {
    error = "--payload-file: error reading '" + path + "'";
    return false;
  }
  if (out.size() > limit) {
    error = "--payload-file: '" + path + "' holds more than the " +
            std::to_string(limit) + " bytes a task may carry";
    return false;
  }
  return true;
}

} // namespace dice::cli
