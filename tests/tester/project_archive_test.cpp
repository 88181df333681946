#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <archive.h>
#include <archive_entry.h>

#include "tester/project_archive.hpp"
#include "tester/sha256.hpp"
#include "tester_temp.hpp"

using namespace dice;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const unpack_limits roomy{1 << 20, 1000};

/// A tar.gz with one entry of the given name and content.
void write_tar(const std::string& path, const std::string& name, const std::string& body) {
  auto* w = archive_write_new();
  archive_write_add_filter_gzip(w);
  archive_write_set_format_pax_restricted(w);
  archive_write_open_filename(w, path.c_str());
  auto* e = archive_entry_new();
  archive_entry_set_pathname(e, name.c_str());
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, static_cast<la_int64_t>(body.size()));
  archive_write_header(w, e);
  archive_write_data(w, body.data(), body.size());
  archive_entry_free(e);
  archive_write_close(w);
  archive_write_free(w);
}

} // namespace

TEST_CASE("a packed directory unpacks to the same files", "[tester][archive]") {
  test::scratch_dir d;
  d.write("src/tests/test_a.py", "def test_a(): pass\n");
  d.write("src/pkg/mod.py", "X = 1\n");
  d.write("src/.git/HEAD", "ref: x\n");              // skipped
  d.write("src/tests/__pycache__/a.pyc", "junk");   // skipped
  std::string err;
  REQUIRE(pack_directory(d.path + "/src", d.path + "/p.tar.gz", err));
  fs::create_directories(d.path + "/out");
  CHECK(unpack_archive(d.path + "/p.tar.gz", d.path + "/out", roomy, err) == 2);
  std::ifstream in(d.path + "/out/tests/test_a.py");
  std::string line;
  std::getline(in, line);
  CHECK(line == "def test_a(): pass");
  CHECK_FALSE(fs::exists(d.path + "/out/.git"));
  CHECK_FALSE(fs::exists(d.path + "/out/tests/__pycache__"));

  SECTION("the same tree packs to the same bytes, so the same blob name") {
    REQUIRE(pack_directory(d.path + "/src", d.path + "/q.tar.gz", err));
    CHECK(sha256_file_hex(d.path + "/p.tar.gz") == sha256_file_hex(d.path + "/q.tar.gz"));
  }
  SECTION("limits on size and entries stop an unpack") {
    fs::create_directories(d.path + "/small");
    CHECK(unpack_archive(d.path + "/p.tar.gz", d.path + "/small", {5, 1000}, err) == -1);
    CHECK_THAT(err, Contains("more than 5 bytes"));
    CHECK(unpack_archive(d.path + "/p.tar.gz", d.path + "/small", {1 << 20, 1}, err) == -1);
    CHECK_THAT(err, Contains("more than 1 entries"));
  }
}

TEST_CASE("archives that are not projects are refused with a reason",
          "[tester][archive]") {
  test::scratch_dir d;
  std::string err;
  fs::create_directories(d.path + "/out");
  SECTION("an entry that climbs out of the workspace") {
    write_tar(d.path + "/evil.tar.gz", "../escaped.txt", "x");
    CHECK(unpack_archive(d.path + "/evil.tar.gz", d.path + "/out", roomy, err) == -1);
    CHECK_THAT(err, Contains("outside the project"));
    CHECK_FALSE(fs::exists(d.path + "/escaped.txt"));
  }
  SECTION("an absolute path") {
    write_tar(d.path + "/abs.tar.gz", "/tmp/dice-absolute-entry", "x");
    CHECK(unpack_archive(d.path + "/abs.tar.gz", d.path + "/out", roomy, err) == -1);
    CHECK_THAT(err, Contains("outside the project"));
  }
  SECTION("bytes that are no archive") {
    auto junk = d.write("junk.tar.gz", std::string(3000, '\x17'));
    CHECK(unpack_archive(junk, d.path + "/out", roomy, err) == -1);
    CHECK_FALSE(err.empty());
  }
  SECTION("a directory without files packs to nothing") {
    fs::create_directories(d.path + "/empty/sub");
    CHECK_FALSE(pack_directory(d.path + "/empty", d.path + "/e.tar.gz", err));
    CHECK_THAT(err, Contains("holds no files"));
  }
}
