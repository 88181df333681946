#include "test_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

using nlohmann::json;

namespace dice::cli {

namespace {

std::uint64_t count(const json& c, const char* name) {
  return c.is_object() ? c.value(name, 0ull) : 0;
}

// A test's JUnit classname and name as pytest writes them: the module as a
// dotted path ("t/test_a.py" -> "t.test_a", then any class), and the test
// itself ("t/test_a.py::TestK::test_x" -> "t.test_a.TestK", "test_x").
std::pair<std::string, std::string> junit_names(const std::string& module,
                                                const std::string& id) {
  auto rest = id.rfind(module + "::", 0) == 0 ? id.substr(module.size() + 2) : id;
  auto dotted = module;
  if (dotted.size() > 3 && dotted.compare(dotted.size() - 3, 3, ".py") == 0)
    dotted.resize(dotted.size() - 3);
  std::replace(dotted.begin(), dotted.end(), '/', '.');
  auto last = rest.rfind("::");
  if (last == std::string::npos)
    return {dotted, rest};
  auto classes = rest.substr(0, last);
  for (std::size_t at; (at = classes.find("::")) != std::string::npos;)
    classes.replace(at, 2, ".");
  return {dotted + "." + classes, rest.substr(last + 2)};
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 has no place for other control characters.
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string banner(const std::string& title, char fill) {
  std::string t = " " + title + " ";
  std::size_t width = 78;
  if (t.size() >= width)
    return t;
  std::size_t left = (width - t.size()) / 2;
  return std::string(left, fill) + t + std::string(width - t.size() - left, fill);
}

} // namespace

std::string progress_line(const json& r) {
  auto t = r.value("totals", json::object());
  std::ostringstream s;
  s << "modules " << r.value("modules_done", 0) << "/" << r.value("modules_total", 0)
    << ", " << count(t, "passed") << " passed, " << count(t, "failed") << " failed";
  if (count(t, "errors"))
    s << ", " << count(t, "errors") << " errors";
  auto nodes = r.value("nodes", json::object());
  if (!nodes.empty()) {
    s << " (";
    bool first = true;
    for (auto& [id, n] : nodes.items()) {
      s << (first ? "" : ", ") << id << ": " << n.value("modules", 0);
      first = false;
    }
    s << ")";
  }
  return s.str();
}

std::string summary_text(const json& r, double seconds) {
  std::ostringstream s;
  std::ostringstream short_summary;
  bool any = false;
  for (auto& m : r.value("modules", json::array())) {
    auto module = m.value("module", "module " + std::to_string(m.value("index", 0)));
    if (m.contains("error")) {
      if (!any)
        s << banner("FAILURES", '=') << "\n";
      any = true;
      s << banner(module + " (module error)", '_') << "\n"
        << m.value("error", "") << "\n";
      if (m.contains("output"))
        s << m.value("output", "") << "\n";
      if (m.value("tests", json::array()).empty())
        short_summary << "ERROR " << module << " - " << m.value("error", "") << "\n";
    }
    for (auto& t : m.value("tests", json::array())) {
      auto outcome = t.value("outcome", "");
      if (outcome != "failed" && outcome != "error")
        continue;
      if (!any)
        s << banner("FAILURES", '=') << "\n";
      any = true;
      auto id = t.value("id", "");
      s << banner(id, '_') << "\n" << t.value("output", "") << "\n";
      short_summary << (outcome == "failed" ? "FAILED " : "ERROR ") << id
                    << " (on " << m.value("node", "?") << ")\n";
    }
    for (auto& t : m.value("tests", json::array()))
      if (t.value("flaky", false))
        short_summary << "FLAKY " << t.value("id", "") << " (failed, then passed)\n";
  }
  if (!short_summary.str().empty())
    s << banner("short test summary info", '=') << "\n" << short_summary.str();
  auto t = r.value("totals", json::object());
  std::ostringstream totals;
  auto part = [&](std::uint64_t n, const char* what) {
    if (n == 0)
      return;
    totals << (totals.str().empty() ? "" : ", ") << n << " " << what;
  };
  part(count(t, "failed"), "failed");
  part(count(t, "passed"), "passed");
  part(count(t, "skipped"), "skipped");
  part(count(t, "xfailed"), "xfailed");
  part(count(t, "errors"), count(t, "errors") == 1 ? "error" : "errors");
  part(count(t, "flaky"), "flaky");
  if (totals.str().empty())
    totals << "no tests ran";
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%.2fs", seconds);
  totals << " in " << secs << " on " << r.value("nodes", json::object()).size()
         << " node(s), " << r.value("modules_total", 0) << " module(s)";
  s << banner(totals.str(), '=') << "\n";
  return s.str();
}

std::string junit_xml(const json& r) {
  std::ostringstream x;
  auto t = r.value("totals", json::object());
  x << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites name=\""
    << xml_escape(r.value("name", "")) << "\" tests=\"" << count(t, "tests")
    << "\" failures=\"" << count(t, "failed") << "\" errors=\"" << count(t, "errors")
    << "\" skipped=\"" << count(t, "skipped") + count(t, "xfailed") << "\">\n";
  for (auto& m : r.value("modules", json::array())) {
    auto c = m.value("counts", json::object());
    auto module = m.value("module", "");
    x << "  <testsuite name=\"" << xml_escape(module) << "\" hostname=\""
      << xml_escape(m.value("node", "")) << "\" tests=\"" << count(c, "tests")
      << "\" failures=\"" << count(c, "failed") << "\" errors=\"" << count(c, "errors")
      << "\" skipped=\"" << count(c, "skipped") + count(c, "xfailed") << "\" time=\""
      << m.value("duration_ms", 0) / 1000.0 << "\">\n";
    auto tests = m.value("tests", json::array());
    if (m.contains("error") && tests.empty())
      x << "    <testcase classname=\"" << xml_escape(module) << "\" name=\"(module)\">"
        << "<error message=\"" << xml_escape(m.value("error", "")) << "\">"
        << xml_escape(m.value("output", "")) << "</error></testcase>\n";
    for (auto& tc : tests) {
      auto outcome = tc.value("outcome", "");
      auto [classname, name] = junit_names(module, tc.value("id", ""));
      x << "    <testcase classname=\"" << xml_escape(classname) << "\" name=\""
        << xml_escape(name) << "\" time=\"" << tc.value("ms", 0) / 1000.0
        << "\"";
      if (outcome == "passed" && !tc.value("flaky", false)) {
        x << "/>\n";
        continue;
      }
      x << ">";
      auto out = xml_escape(tc.value("output", ""));
      if (outcome == "failed")
        x << "<failure message=\"failed\">" << out << "</failure>";
      else if (outcome == "error")
        x << "<error message=\"error\">" << out << "</error>";
      else if (outcome == "skipped")
        x << "<skipped message=\"" << out << "\"/>";
      else if (outcome == "xfailed") // JUnit has no expected failure
        x << "<skipped type=\"pytest.xfail\" message=\"" << out << "\"/>";
      else // flaky: passed on a rerun
        x << "<system-out>flaky: failed, then passed on a rerun\n" << out << "</system-out>";
      x << "</testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

int exit_status(const json& r) {
  auto t = r.value("totals", json::object());
  bool done = r.value("state", "") == "done";
  return done && count(t, "failed") == 0 && count(t, "errors") == 0 ? 0 : 1;
}

} // namespace dice::cli
