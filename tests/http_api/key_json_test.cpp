#include <catch2/catch.hpp>

#include "broadcast_bridge/keyring_file.hpp"
#include "http_api/key_json.hpp"

using namespace dice;

TEST_CASE("GET /keys lists key ids and counters, never key bytes", "[http][keyring]") {
  const std::string k1 = "the first cluster key", k2 = "the second cluster key";
  auto id1 = keyring::id_of(k1), id2 = keyring::id_of(k2);
  keyring_view v;
  v.ids = {id1, id2};
  v.primary = id2;
  v.persisted = true;
  v.by_key[id1] = {3, 4};
  v.unknown_key_ids["0badc0de"] = 5;
  auto j = keys_json("n1", v);
  CHECK(j["self"] == "n1");
  CHECK(j["primary"] == id2);
  CHECK(j["persisted"] == true);
  REQUIRE(j["keys"].size() == 2);
  CHECK(j["keys"][0] == nlohmann::json{{"id", id1}, {"primary", false}, {"sent", 3},
                                       {"received", 4}});
  CHECK(j["keys"][1]["primary"] == true);
  CHECK(j["keys"][1]["sent"] == 0);
  CHECK(j["unknown"][0] == nlohmann::json{{"id", "0badc0de"}, {"dropped", 5}});
  auto text = j.dump();
  CHECK(text.find(k1) == std::string::npos);
  CHECK(text.find(base64_encode(k1)) == std::string::npos);
  CHECK(keys_json("n1", keyring_view{})["primary"].is_null());
}

TEST_CASE("POST /keys and POST /keys/use bodies are checked with clear errors",
          "[http][keyring]") {
  std::string err;
  auto key = parse_key_install(R"({"key": ")" + base64_encode("a key of 16 bytes+")
                                 + "\"}", err);
  REQUIRE(key);
  CHECK(*key == "a key of 16 bytes+");
  CHECK_FALSE(parse_key_install(R"({"key": ")" + base64_encode("ten bytes!") + "\"}", err));
  CHECK(err.find("at least 16 bytes") != std::string::npos);
  CHECK_FALSE(parse_key_install(R"({"key": "not base64!"})", err));
  CHECK(err.find("base64") != std::string::npos);
  CHECK_FALSE(parse_key_install("not json", err));
  CHECK(err.find("JSON object") != std::string::npos);
  CHECK_FALSE(parse_key_install(R"({"id": "x"})", err));
  CHECK(err.find("\"key\"") != std::string::npos);

  auto id = parse_key_use(R"({"id": "0badc0de"})", err);
  REQUIRE(id);
  CHECK(*id == "0badc0de");
  CHECK_FALSE(parse_key_use(R"({"id": "0BADC0DE"})", err));
  CHECK(err.find("8 hex digits") != std::string::npos);
  CHECK_FALSE(parse_key_use(R"({"id": 7})", err));
  CHECK(is_key_id("0123abcd"));
  CHECK_FALSE(is_key_id("0123abc"));
}
