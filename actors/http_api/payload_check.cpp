// submit_payload_problem (task_json.hpp): apart from task_json.cpp, which
// the fuzz targets build without the executor.
#include "executor/shell_kind.hpp"
#include "executor/task_kinds.hpp"
#include "http_api/task_json.hpp"

namespace dice {

std::string submit_payload_problem(const std::string& kind,
                                   const std::string& payload) {
  std::string why = builtin_payload_problem(kind, payload);
  if (why.empty() && kind == "shell" && shell_argv(payload, why).empty()
      && why.empty()) // shell_argv says why, but for an empty payload
    why = "shell: the payload names no program";
  return why;
}

} // namespace dice
