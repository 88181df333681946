#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tester/test_module.hpp"
#include "tester_temp.hpp"

using namespace dice;

TEST_CASE("a module task's payload round-trips and bad ones are refused",
          "[tester][module]") {
  module_task t{"ev-1", std::string(64, 'a'), "tests/test_a.py", "pytest", 30, 2,
                {"127.0.0.1:8401"}};
  std::string err;
  auto back = decode_module_task(encode_module_task(t), err);
  REQUIRE(back);
  CHECK(back->module == "tests/test_a.py");
  CHECK(back->reruns == 2);
  CHECK(back->sources == t.sources);
  CHECK_FALSE(decode_module_task("{}", err));
  CHECK_FALSE(decode_module_task("not json", err));
  CHECK_THAT(err, Catch::Matchers::Contains("bad payload"));
}

TEST_CASE("a module's result stays within its limit, its counts exact",
          "[tester][module]") {
  module_result r;
  r.node = "n1";
  for (int i = 0; i < 2000; ++i) {
    test_case_result tc;
    tc.id = "tests/test_many.py::test_" + std::to_string(i);
    tc.outcome = i % 100 == 0 ? "failed" : "passed";
    tc.output = i % 100 == 0 ? std::string(2000, 'e') + "assert" : "";
    r.counts.add(tc.outcome, false);
    r.tests.push_back(tc);
  }
  auto text = encode_module_result(r, 16 * 1024);
  CHECK(text.size() <= 16 * 1024);
  auto back = decode_module_result(text);
  CHECK(back.counts.passed == 1980);
  CHECK(back.counts.failed == 20);
  CHECK(back.node == "n1");
  // What is kept first: the failures.
  REQUIRE_FALSE(back.tests.empty());
  CHECK(back.tests.front().outcome == "failed");

  SECTION("a small result is kept whole") {
    module_result small;
    small.tests.push_back({"a::b", "passed", 0.25, "", false});
    small.counts.add("passed", false);
    auto s = decode_module_result(encode_module_result(small, 16 * 1024));
    REQUIRE(s.tests.size() == 1);
    CHECK(s.tests[0].seconds == Approx(0.25));
  }
}

TEST_CASE("pytest's files are found as pytest finds them", "[tester][module]") {
  test::scratch_dir d;
  d.write("tests/test_a.py", "");
  d.write("tests/sub/b_test.py", "");
  d.write("tests/helper.py", "");
  d.write("tests/test_data.txt", "");
  d.write(".hidden/test_x.py", "");
  d.write("build/test_y.py", "");
  d.write("venv/lib/test_z.py", "");
  CHECK(discover_pytest_files(d.path)
        == std::vector<std::string>{"tests/sub/b_test.py", "tests/test_a.py"});
}

TEST_CASE("collected test ids are the lines with ::", "[tester][module]") {
  auto ids = parse_collected_ids("tests/test_a.py::test_x\n"
                                 "tests/test_a.py::TestK::test_y[1]\n"
                                 "\n3 tests collected in 0.01s\n");
  CHECK(ids == std::vector<std::string>{"tests/test_a.py::test_x",
                                        "tests/test_a.py::TestK::test_y[1]"});
}

TEST_CASE("ctest's test list gives the names, and a name matches only itself",
          "[tester][module]") {
  std::string err;
  auto names = parse_ctest_names(R"js({"kind":"ctestInfo","version":{"major":1},
    "tests":[{"name":"adds_up","command":["a"]},{"name":"a.b (x)"}]})js", err);
  CHECK(err.empty());
  CHECK(names == std::vector<std::string>{"adds_up", "a.b (x)"});
  CHECK(parse_ctest_names("CMake Error: no build tree", err).empty());
  CHECK_THAT(err, Catch::Matchers::Contains("did not print a test list"));
  CHECK(ctest_exact_regex("adds_up") == "^adds_up$");
  CHECK(ctest_exact_regex("a.b (x)") == "^a\\.b \\(x\\)$");
}
