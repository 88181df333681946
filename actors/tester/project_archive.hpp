#pragma once
// Projects as archives (libarchive): a directory is packed into one
// .tar.gz whose bytes depend only on the files (sorted names, no times or
// owners), so the same tree gets the same SHA-256 name; any .tar.gz, .tar
// or .zip is unpacked into a fresh workspace with every entry kept inside
// it (no absolute paths, no "..", no writing through symlinks) and the
// unpacked size and entry count bounded.
#include <cstdint>
#include <string>

namespace dice {

struct unpack_limits {
  std::uint64_t max_bytes = 0;   // unpacked content, all files together
  std::uint64_t max_entries = 0;
};

/// Packs the files under `dir` (skipping .git, __pycache__ and
/// .pytest_cache) into a gzip-compressed tar at `out_path`. False with
/// `error` set if the directory cannot be read or holds no file.
bool pack_directory(const std::string& dir, const std::string& out_path,
                    std::string& error);

/// Unpacks the archive at `archive_path` into the existing directory
/// `dest`. Returns the number of regular files written; -1 with `error`
/// set if the archive is broken, not an archive, or past the limits (what
/// was written stays for the caller to remove).
long long unpack_archive(const std::string& archive_path, const std::string& dest,
                         const unpack_limits& limits, std::string& error);

} // namespace dice
