#include "yaml_json.hpp"

#include <cstdlib>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace dice::cli {

namespace {

// YAML 1.2 core schema: what a plain scalar means.
nlohmann::json plain_scalar(const std::string& s) {
  static const std::regex null_re{"~|null|Null|NULL|"};
  static const std::regex true_re{"true|True|TRUE"};
  static const std::regex false_re{"false|False|FALSE"};
  static const std::regex int_re{"[-+]?[0-9]+"};
  static const std::regex float_re{
    "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?"};
  if (std::regex_match(s, null_re))
    return nullptr;
  if (std::regex_match(s, true_re))
    return true;
  if (std::regex_match(s, false_re))
    return false;
  if (std::regex_match(s, int_re)) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == 0)
      return v;
  }
  if (std::regex_match(s, float_re))
    return std::strtod(s.c_str(), nullptr);
  return s;
}

nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      auto o = nlohmann::json::object();
      for (const auto& kv : n)
        o[kv.first.as<std::string>()] = to_json(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      auto a = nlohmann::json::array();
      for (const auto& v : n)
        a.push_back(to_json(v));
      return a;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar is tagged "!", a plain one "?".
      return n.Tag() == "!" ? nlohmann::json(n.Scalar()) : plain_scalar(n.Scalar());
    default:
      return nullptr;
  }
}

} // namespace

bool yaml_to_json(const std::string& text, nlohmann::json& out, std::string& error) {
  try {
    out = to_json(YAML::Load(text));
    return true;
  } catch (const YAML::Exception& e) {
    error = "line " + std::to_string(e.mark.line + 1) + ", column "
            + std::to_string(e.mark.column + 1) + ": " + e.msg;
    return false;
  }
}

bool is_yaml_path(const std::string& path) {
  auto ends = [&](const std::string& ext) {
    return path.size() >= ext.size()
           && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

} // namespace dice::cli
