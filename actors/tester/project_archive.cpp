#include "tester/project_archive.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <archive.h>
#include <archive_entry.h>

namespace fs = std::filesystem;

namespace dice {

namespace {

using reader = std::unique_ptr<archive, decltype(&archive_read_free)>;
using writer = std::unique_ptr<archive, decltype(&archive_write_free)>;

/// An entry name that stays inside the workspace: relative, no "..".
bool inside(const char* name) {
  if (!name || !*name || name[0] == '/')
    return false;
  for (auto& part : fs::path(name))
    if (part == "..")
      return false;
  return true;
}

bool skipped(const fs::path& p) {
  auto name = p.filename().string();
  return name == ".git" || name == "__pycache__" || name == ".pytest_cache";
}

} // namespace

bool pack_directory(const std::string& dir, const std::string& out_path,
                    std::string& error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + " is not a directory";
    return false;
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (skipped(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink() || it->is_regular_file())
      files.push_back(fs::relative(it->path(), dir));
  }
  if (ec) {
    error = "cannot read " + dir + ": " + ec.message();
    return false;
  }
  if (files.empty()) {
    error = dir + " holds no files";
    return false;
  }
  std::sort(files.begin(), files.end());
  writer w{archive_write_new(), archive_write_free};
  archive_write_add_filter_gzip(w.get());
  // No name or time in the gzip header: the same tree, the same bytes.
  archive_write_set_filter_option(w.get(), "gzip", "timestamp", nullptr);
  archive_write_set_format_pax_restricted(w.get());
  if (archive_write_open_filename(w.get(), out_path.c_str()) != ARCHIVE_OK) {
    error = std::string("cannot write ") + out_path + ": "
            + archive_error_string(w.get());
    return false;
  }
  std::vector<char> buf(64 * 1024);
  for (auto& rel : files) {
    auto full = fs::path(dir) / rel;
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e{
      archive_entry_new(), archive_entry_free};
    archive_entry_set_pathname(e.get(), rel.generic_string().c_str());
    if (fs::is_symlink(full, ec)) {
      archive_entry_set_filetype(e.get(), AE_IFLNK);
      archive_entry_set_perm(e.get(), 0777);
      archive_entry_set_symlink(e.get(), fs::read_symlink(full, ec).c_str());
      archive_write_header(w.get(), e.get());
      continue;
    }
    auto size = fs::file_size(full, ec);
    auto perms = fs::status(full, ec).permissions();
    bool exec = (perms & fs::perms::owner_exec) != fs::perms::none;
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), exec ? 0755 : 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(size));
    if (archive_write_header(w.get(), e.get()) != ARCHIVE_OK) {
      error = std::string("cannot pack ") + full.string() + ": "
              + archive_error_string(w.get());
      return false;
    }
    std::ifstream in(full, std::ios::binary);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size()))
           || in.gcount() > 0)
      archive_write_data(w.get(), buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (archive_write_close(w.get()) != ARCHIVE_OK) {
    error = std::string("cannot finish ") + out_path + ": "
            + archive_error_string(w.get());
    return false;
  }
  return true;
}

long long unpack_archive(const std::string& archive_path, const std::string& dest,
                         const unpack_limits& limits, std::string& error) {
  reader r{archive_read_new(), archive_read_free};
  archive_read_support_filter_all(r.get());
  archive_read_support_format_tar(r.get());
  archive_read_support_format_zip(r.get());
  archive_read_support_format_gnutar(r.get());
  if (archive_read_open_filename(r.get(), archive_path.c_str(), 64 * 1024)
      != ARCHIVE_OK) {
    error = std::string("not a readable archive: ") + archive_error_string(r.get());
    return -1;
  }
  writer disk{archive_write_disk_new(), archive_write_free};
  archive_write_disk_set_options(
    disk.get(), ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS
                  | ARCHIVE_EXTRACT_PERM);
  long long files = 0;
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  archive_entry* e = nullptr;
  for (;;) {
    int rc = archive_read_next_header(r.get(), &e);
    if (rc == ARCHIVE_EOF)
      break;
    if (rc < ARCHIVE_WARN) {
      error = std::string("broken archive: ") + archive_error_string(r.get());
      return -1;
    }
    if (++entries > limits.max_entries) {
      error = "archive has more than " + std::to_string(limits.max_entries)
              + " entries";
      return -1;
    }
    auto type = archive_entry_filetype(e);
    if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
      continue; // devices, fifos: nothing a test suite needs
    // Checked here because the name gets the workspace's absolute path
    // in front, which libarchive's own absolute-path check would refuse.
    const char* link = archive_entry_hardlink(e);
    if (!inside(archive_entry_pathname(e)) || (link && !inside(link))) {
      error = std::string("archive entry '") + (archive_entry_pathname(e) ? archive_entry_pathname(e) : "")
              + "' points outside the project";
      return -1;
    }
    std::string path = (fs::path(dest) / archive_entry_pathname(e)).string();
    archive_entry_set_pathname(e, path.c_str());
    if (link)
      archive_entry_set_hardlink(e, (fs::path(dest) / link).string().c_str());
    if (archive_write_header(disk.get(), e) < ARCHIVE_WARN) {
      error = std::string("cannot unpack '") + path.substr(dest.size()) + "': "
              + archive_error_string(disk.get());
      return -1;
    }
    if (type == AE_IFREG)
      ++files;
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
      rc = archive_read_data_block(r.get(), &block, &size, &offset);
      if (rc == ARCHIVE_EOF)
        break;
      if (rc < ARCHIVE_WARN) {
        error = std::string("broken archive: ") + archive_error_string(r.get());
        return -1;
      }
      bytes += size;
      if (bytes > limits.max_bytes) {
        error = "archive unpacks to more than " + std::to_string(limits.max_bytes)
                + " bytes";
        return -1;
      }
      if (archive_write_data_block(disk.get(), block, size, offset) < ARCHIVE_WARN) {
        error = std::string("cannot unpack: ") + archive_error_string(disk.get());
        return -1;
      }
    }
    archive_write_finish_entry(disk.get());
  }
  return files;
}

} // namespace dice
