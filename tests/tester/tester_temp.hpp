#pragma once
// A fresh directory for one test, removed afterwards.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace dice::test {

struct scratch_dir {
  std::string path;
  scratch_dir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/dice-unit-XXXXXX";
    path = ::mkdtemp(templ.data()) ? templ : "";
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& content) const {
    auto full = std::filesystem::path(path) / rel;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << content;
    return full.string();
  }
};

} // namespace dice::test
