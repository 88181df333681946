#pragma once
// dice test: hands a project to the cluster as one evaluation, follows it
// and prints a pytest-like summary (see test_command.cpp).
#include <optional>

namespace dice::cli {

/// The exit status of `dice … test …` if argv names the test command,
/// else nullopt (main goes on with the other commands).
std::optional<int> maybe_test_command(int argc, char** argv);

} // namespace dice::cli
