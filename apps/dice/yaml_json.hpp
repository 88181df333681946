#pragma once
// A workflow file written in YAML, read into the JSON `POST /workflows`
// takes. yaml-cpp parses; this only maps its nodes to JSON values.
#include <string>

#include <nlohmann/json.hpp>

namespace dice::cli {

/// `text` as JSON. Mappings become objects, sequences arrays; a quoted
/// scalar stays a string, a plain one becomes null, a boolean or a number
/// when it reads as one (YAML 1.2's core schema), else a string. On a
/// syntax error: false, and `error` names the line and column.
bool yaml_to_json(const std::string& text, nlohmann::json& out, std::string& error);

/// True if `path` names a YAML file (.yaml or .yml).
bool is_yaml_path(const std::string& path);

} // namespace dice::cli
