#pragma once
// A file compiled into the binary (cmake/embed_files.cmake writes the
// table), so a node serves its dashboard without files beside it.
#include <cstddef>
#include <string>

namespace dice {

struct embedded_file {
  const char* name; // the file's name, without its folder
  const char* data;
  std::size_t size;
};

} // namespace dice
