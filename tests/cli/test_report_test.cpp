#include <catch2/catch.hpp>

#include "test_report.hpp"

using namespace dice::cli;

TEST_CASE("dice test's summary and JUnit report count expected failures "
          "apart from skips", "[cli][tester]") {
  nlohmann::json report{
    {"name", "demo"},
    {"state", "done"},
    {"modules_total", 1},
    {"nodes", {{"n1", {}}}},
    {"totals", {{"tests", 4}, {"passed", 2}, {"skipped", 1}, {"xfailed", 1}}},
    {"modules",
     {{{"module", "t/test_a.py"},
       {"node", "n1"},
       {"counts", {{"tests", 4}, {"passed", 2}, {"skipped", 1}, {"xfailed", 1}}},
       {"tests",
        {{{"id", "t/test_a.py::skip"}, {"outcome", "skipped"}, {"output", "not yet"}},
         {{"id", "t/test_a.py::bug"}, {"outcome", "xfailed"}, {"output", "bug 12"}},
         {{"id", "t/test_a.py::TestK::test_x[1]"}, {"outcome", "passed"}}}}}}}};
  auto text = summary_text(report, 1.5);
  CAPTURE(text);
  CHECK(text.find("2 passed, 1 skipped, 1 xfailed in 1.50s") != std::string::npos);
  auto xml = junit_xml(report);
  CAPTURE(xml);
  // JUnit has no expected failure: a skip of pytest's xfail type.
  CHECK(xml.find("<skipped type=\"pytest.xfail\" message=\"bug 12\"/>") != std::string::npos);
  CHECK(xml.find("skipped=\"2\"") != std::string::npos);
  // classname and name as pytest writes them, not the whole id.
  CHECK(xml.find("classname=\"t.test_a\" name=\"bug\"") != std::string::npos);
  CHECK(xml.find("classname=\"t.test_a.TestK\" name=\"test_x[1]\"") != std::string::npos);
  CHECK(exit_status(report) == 0);
}
