#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "common/power_supply.hpp"

using namespace dice;
namespace fs = std::filesystem;

namespace {

// A fake /sys/class/power_supply under the test's temp dir.
struct supplies {
  fs::path root = fs::temp_directory_path()
                  / ("dice-power-" + std::to_string(::getpid()));
  supplies() { fs::remove_all(root); fs::create_directories(root); }
  ~supplies() { fs::remove_all(root); }
  void add(const std::string& name, const std::string& type,
           const std::string& capacity = "") {
    fs::create_directories(root / name);
    std::ofstream(root / name / "type") << type << "\n";
    if (!capacity.empty())
      std::ofstream(root / name / "capacity") << capacity << "\n";
  }
};

} // namespace

TEST_CASE("the battery level comes from the first battery with a capacity",
          "[common]") {
  supplies s;
  CHECK_FALSE(read_battery_level(s.root.string())); // no supply at all
  s.add("AC", "Mains");
  CHECK_FALSE(read_battery_level(s.root.string())); // mains only: a desktop
  s.add("BAT1", "Battery", "40");
  s.add("BAT0", "Battery", "87");
  CHECK(read_battery_level(s.root.string()) == 87u);
  s.add("BAT0", "Battery", "garbage");
  CHECK(read_battery_level(s.root.string()) == 40u); // BAT0 unreadable
  s.add("BAT1", "Battery", "104");
  CHECK(read_battery_level(s.root.string()) == 100u);
  CHECK_FALSE(read_battery_level((s.root / "missing").string()));
}
