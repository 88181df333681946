#pragma once
// How dice test shows an evaluation: a progress line while it runs, then
// a pytest-like summary (each failure's output, a short summary, totals)
// and, on request, a JUnit XML file.
#include <string>

#include <nlohmann/json.hpp>

namespace dice::cli {

/// "modules 3/8, 20 passed, 2 failed (a: 2, b: 1)"
std::string progress_line(const nlohmann::json& report);

/// The summary printed at the end.
std::string summary_text(const nlohmann::json& report, double seconds);

/// The report as a JUnit XML document: one testsuite per module.
std::string junit_xml(const nlohmann::json& report);

/// 0 when every module ran and no test failed or errored, else 1.
int exit_status(const nlohmann::json& report);

} // namespace dice::cli
