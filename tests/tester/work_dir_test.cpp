#include <catch2/catch.hpp>

#include <filesystem>

#include "tester/work_dir.hpp"
#include "tester_temp.hpp"

using namespace dice;
namespace fs = std::filesystem;

TEST_CASE("a restarted node sweeps the workspaces and clones a killed run left",
          "[tester][workspace]") {
  test::scratch_dir d;
  d.write("ws-3-abcdef/tests/test_a.py", "def test_a(): pass\n");
  d.write("clone-xyz/src/README", "a clone\n");
  d.write("blobs/keep", "not a workspace\n");
  d.write("ws-file", "a file, not a workspace\n");
  CHECK(sweep_stale_workspaces(d.path) == 2);
  CHECK_FALSE(fs::exists(d.path + "/ws-3-abcdef"));
  CHECK_FALSE(fs::exists(d.path + "/clone-xyz"));
  CHECK(fs::exists(d.path + "/blobs/keep"));
  CHECK(fs::exists(d.path + "/ws-file"));
  CHECK(sweep_stale_workspaces(d.path) == 0);
  CHECK(sweep_stale_workspaces(d.path + "/no-such-dir") == 0);
}
