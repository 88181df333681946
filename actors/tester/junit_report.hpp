#pragma once
// Reads a JUnit XML report (pytest --junitxml, ctest --output-junit) into
// one result per test case. Parsed with expat; a malformed report gives
// what was read before the error and says so.
#include <string>
#include <vector>

namespace dice {

struct test_case_result {
  std::string id;      // pytest's node id when the file is known, else classname.name
  std::string outcome; // "passed", "failed", "skipped", "xfailed" or "error"
  double seconds = 0;
  std::string output;  // the failure's or error's text (tail, bounded)
  bool flaky = false;  // failed, then passed on a rerun
};

/// Keeps the last `cap` bytes of `text` (a traceback ends with the line
/// that failed), saying how much was cut.
std::string tail_of(const std::string& text, std::size_t cap);

/// The test cases of `xml`; each case's output is cut to `output_cap`
/// bytes. `error` is set (and the cases read so far returned) if the XML
/// is malformed.
std::vector<test_case_result> parse_junit(const std::string& xml,
                                          std::size_t output_cap,
                                          std::string& error);

/// pytest's node id from a JUnit case of junit_family=xunit1: the file,
/// then the classname's parts after the module's dotted path, then the name
/// ("t/test_a.py", "t.test_a.TestK", "test_x" -> "t/test_a.py::TestK::test_x").
std::string pytest_node_id(const std::string& file, const std::string& classname,
                           const std::string& name);

} // namespace dice
