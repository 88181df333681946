#include <catch2/catch.hpp>

#include "tester/junit_report.hpp"

using namespace dice;

// What pytest 7 writes with -o junit_family=xunit1 (shortened).
static const char* pytest_xml = R"(<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4" time="0.1">
<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="3" time="0.002"/>
<testcase classname="tests.test_a.TestK" name="test_in_class[1-2]" file="tests/test_a.py" line="9" time="0.5"/>
<testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py" line="12" time="0.010"><failure message="AssertionError: two and two">def test_bad():
&gt;       assert 2 + 2 == 5
E       AssertionError</failure></testcase>
<testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py" line="20" time="0.000"><skipped type="pytest.skip" message="not yet">tests/test_a.py:20: not yet</skipped></testcase>
<testcase classname="tests.test_a" name="test_known_bug" file="tests/test_a.py" line="24" time="0.001"><skipped type="pytest.xfail" message="bug 12" /></testcase>
</testsuite></testsuites>)";

TEST_CASE("pytest's JUnit XML gives each test its node id and outcome", "[tester][junit]") {
  std::string err;
  auto cases = parse_junit(pytest_xml, 2048, err);
  CHECK(err.empty());
  REQUIRE(cases.size() == 5);
  CHECK(cases[0].id == "tests/test_a.py::test_ok");
  CHECK(cases[0].outcome == "passed");
  CHECK(cases[1].id == "tests/test_a.py::TestK::test_in_class[1-2]");
  CHECK(cases[1].seconds == Approx(0.5));
  CHECK(cases[2].outcome == "failed");
  CHECK_THAT(cases[2].output, Catch::Matchers::Contains("assert 2 + 2 == 5"));
  CHECK_THAT(cases[2].output, Catch::Matchers::StartsWith("AssertionError: two and two"));
  CHECK(cases[3].outcome == "skipped");
  CHECK(cases[3].output == "not yet");
  // An expected failure is not a skip.
  CHECK(cases[4].outcome == "xfailed");
  CHECK(cases[4].output == "bug 12");
}

TEST_CASE("a failure's output keeps its tail within the cap", "[tester][junit]") {
  std::string big = std::string(5000, 'x') + "THE END";
  std::string xml = "<testsuite><testcase classname=\"t\" name=\"n\"><error message=\"boom\">"
                    + big + "</error></testcase></testsuite>";
  std::string err;
  auto cases = parse_junit(xml, 100, err);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].outcome == "error");
  CHECK(cases[0].id == "t.n");
  CHECK_THAT(cases[0].output, Catch::Matchers::EndsWith("THE END"));
  CHECK(cases[0].output.size() < 140);
}

TEST_CASE("malformed XML says so and keeps what it read", "[tester][junit]") {
  std::string err;
  auto cases = parse_junit("<testsuite><testcase classname=\"a\" name=\"b\"/><oops", 100, err);
  CHECK(cases.size() == 1);
  CHECK_THAT(err, Catch::Matchers::Contains("malformed JUnit XML"));
}

TEST_CASE("ctest's JUnit XML: the test's name is its id, a failure's output is "
          "its system-out", "[tester][junit]") {
  std::string xml = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="2" failures="1">
  <testcase name="adds_up" classname="adds_up" time="0.004" status="run">
    <system-out>fine</system-out>
  </testcase>
  <testcase name="wrong" classname="wrong" time="0.003" status="fail">
    <failure message=""/>
    <system-out>two and two make four
</system-out>
  </testcase>
</testsuite>)xml";
  std::string err;
  auto cases = parse_junit(xml, 2048, err);
  CHECK(err.empty());
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].id == "adds_up");
  CHECK(cases[0].outcome == "passed");
  CHECK(cases[0].output.empty());
  CHECK(cases[1].id == "wrong");
  CHECK(cases[1].outcome == "failed");
  CHECK_THAT(cases[1].output, Catch::Matchers::Contains("two and two make four"));
}
