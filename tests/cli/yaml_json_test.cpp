// A workflow file in YAML reaches POST /workflows as the JSON it means.
#include <catch2/catch.hpp>

#include "yaml_json.hpp"

using dice::cli::yaml_to_json;
using nlohmann::json;

namespace {

json read(const std::string& text) {
  json out;
  std::string error;
  INFO(text);
  REQUIRE(yaml_to_json(text, out, error));
  return out;
}

} // namespace

TEST_CASE("a YAML workflow reads as the JSON workflow it spells", "[cli][yaml]") {
  auto w = read(R"(key: nightly
steps:
  - {name: fetch, kind: shell, payload: /usr/bin/fetch-data}
  - name: resize
    kind: resize
    payloads: [a.png, b.png]
    after: [fetch]
    retries: 2
    on_parent_failure: run
)");
  auto expected = json::parse(R"({"key": "nightly", "steps": [
    {"name": "fetch", "kind": "shell", "payload": "/usr/bin/fetch-data"},
    {"name": "resize", "kind": "resize", "payloads": ["a.png", "b.png"],
     "after": ["fetch"], "retries": 2, "on_parent_failure": "run"}]})");
  CHECK(w == expected);
}

TEST_CASE("YAML scalars: quoted stay strings, plain ones are typed as YAML 1.2 says",
          "[cli][yaml]") {
  auto v = read(R"(int: 42
neg: -7
float: 2.5
exp: 1e3
yes_word: yes
t: true
f: False
n: ~
empty:
quoted_int: "42"
single_quoted_bool: 'true'
text: 10s
version: 1.2.3
)");
  CHECK(v["int"] == 42);
  CHECK(v["neg"] == -7);
  CHECK(v["float"] == 2.5);
  CHECK(v["exp"] == 1000.0);
  CHECK(v["yes_word"] == "yes"); // YAML 1.1's yes is a string in 1.2
  CHECK(v["t"] == true);
  CHECK(v["f"] == false);
  CHECK(v["n"].is_null());
  CHECK(v["empty"].is_null());
  CHECK(v["quoted_int"] == "42");
  CHECK(v["single_quoted_bool"] == "true");
  CHECK(v["text"] == "10s");
  CHECK(v["version"] == "1.2.3");
}

TEST_CASE("YAML anchors and block text read as their values", "[cli][yaml]") {
  auto v = read(R"(defaults: &d {kind: shell, retries: 1}
step: *d
script: |
  echo one
  echo two
)");
  CHECK(v["step"] == json::parse(R"({"kind": "shell", "retries": 1})"));
  CHECK(v["script"] == "echo one\necho two\n");
}

TEST_CASE("bad YAML is refused with its line and column", "[cli][yaml]") {
  json out;
  std::string error;
  CHECK_FALSE(yaml_to_json("steps:\n  - name: a\n   kind: [unclosed\n", out, error));
  CHECK(error.find("line ") == 0);
  error.clear();
  CHECK_FALSE(yaml_to_json("{a: 1\n", out, error));
  CHECK(error.find("line ") == 0);
  error.clear();
  // A mapping used as a key has no JSON form.
  CHECK_FALSE(yaml_to_json("? {a: 1}\n: 2\n", out, error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("YAML files are told by their extension", "[cli][yaml]") {
  CHECK(dice::cli::is_yaml_path("w.yaml"));
  CHECK(dice::cli::is_yaml_path("/tmp/x/w.yml"));
  CHECK_FALSE(dice::cli::is_yaml_path("w.json"));
  CHECK_FALSE(dice::cli::is_yaml_path("yaml"));
}
