#include "tester/junit_report.hpp"

#include <cstdlib>
#include <memory>

#include <expat.h>

namespace dice {

std::string tail_of(const std::string& text, std::size_t cap) {
  if (text.size() <= cap)
    return text;
  return "[" + std::to_string(text.size() - cap) + " bytes cut]\n"
         + text.substr(text.size() - cap);
}

std::string pytest_node_id(const std::string& file, const std::string& classname,
                           const std::string& name) {
  if (file.empty()) // ctest writes its test's name as both
    return classname.empty() || classname == name ? name : classname + "." + name;
  auto module = file;
  if (module.size() > 3 && module.compare(module.size() - 3, 3, ".py") == 0)
    module.resize(module.size() - 3);
  for (auto& c : module)
    if (c == '/')
      c = '.';
  std::string id = file;
  if (classname.size() > module.size() + 1 && classname.rfind(module + ".", 0) == 0) {
    auto rest = classname.substr(module.size() + 1);
    std::size_t start = 0;
    for (auto dot = rest.find('.'); ; dot = rest.find('.', start)) {
      id += "::" + rest.substr(start, dot - start);
      if (dot == std::string::npos)
        break;
      start = dot + 1;
    }
  }
  return id + "::" + name;
}

namespace {

struct parse_state {
  std::vector<test_case_result> cases;
  std::size_t cap = 0;
  bool in_case = false;
  bool in_text = false;  // inside failure/error: its text is the output
  std::string text;
};

const char* attr(const char** atts, const char* name) {
  for (int i = 0; atts[i]; i += 2)
    if (std::string(atts[i]) == name)
      return atts[i + 1];
  return "";
}

void on_start(void* data, const char* el, const char** atts) {
  auto& st = *static_cast<parse_state*>(data);
  std::string name = el;
  if (name == "testcase") {
    test_case_result r;
    r.id = pytest_node_id(attr(atts, "file"), attr(atts, "classname"),
                          attr(atts, "name"));
    r.outcome = "passed";
    r.seconds = std::atof(attr(atts, "time"));
    st.cases.push_back(std::move(r));
    st.in_case = true;
  } else if (st.in_case && (name == "failure" || name == "error" || name == "skipped")) {
    auto& r = st.cases.back();
    // An error in teardown after a failure stays a failure.
    // pytest reports an expected failure as a skip of type pytest.xfail.
    bool xfail = name == "skipped" && std::string(attr(atts, "type")) == "pytest.xfail";
    if (r.outcome == "passed" || name != "skipped")
      r.outcome = name == "failure" ? "failed"
                  : name == "error" ? "error"
                  : xfail           ? "xfailed"
                                    : "skipped";
    std::string message = attr(atts, "message");
    st.text = message.empty() ? "" : message + "\n";
    st.in_text = name != "skipped";
    if (!st.in_text && r.output.empty())
      r.output = tail_of(message, st.cap);
  } else if (st.in_case && name == "system-out" && st.cases.back().outcome != "passed"
             && st.cases.back().outcome != "skipped"
             && st.cases.back().outcome != "xfailed") {
    // ctest puts a failed test's output here, not in <failure>.
    st.text.clear();
    st.in_text = true;
  }
}

void on_end(void* data, const char* el) {
  auto& st = *static_cast<parse_state*>(data);
  std::string name = el;
  if (st.in_text && (name == "failure" || name == "error" || name == "system-out")) {
    auto& out = st.cases.back().output;
    out = tail_of(out.empty() ? st.text : out + "\n" + st.text, st.cap);
    st.in_text = false;
    st.text.clear();
  } else if (name == "testcase") {
    st.in_case = false;
  }
}

void on_text(void* data, const char* s, int len) {
  auto& st = *static_cast<parse_state*>(data);
  if (st.in_text) {
    st.text.append(s, static_cast<std::size_t>(len));
    // Bound memory for a huge traceback: keep a tail twice the cap.
    if (st.text.size() > 4 * st.cap + 4096)
      st.text.erase(0, st.text.size() - 2 * st.cap);
  }
}

} // namespace

std::vector<test_case_result> parse_junit(const std::string& xml,
                                          std::size_t output_cap,
                                          std::string& error) {
  parse_state st;
  st.cap = output_cap;
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> p{
    XML_ParserCreate("UTF-8"), XML_ParserFree};
  XML_SetUserData(p.get(), &st);
  XML_SetElementHandler(p.get(), on_start, on_end);
  XML_SetCharacterDataHandler(p.get(), on_text);
  if (XML_Parse(p.get(), xml.data(), static_cast<int>(xml.size()), 1)
      == XML_STATUS_ERROR)
    error = std::string("malformed JUnit XML: ")
            + XML_ErrorString(XML_GetErrorCode(p.get())) + " at line "
            + std::to_string(XML_GetCurrentLineNumber(p.get()));
  return std::move(st.cases);
}

} // namespace dice
