// GET /election's body: what `dice leader` and scripts read.
#include <catch2/catch.hpp>

#include "http_api/status_json.hpp"

using namespace dice;

TEST_CASE("election json: the coordinator is null while there is none",
          "[http_api][election]") {
  election_view v;
  v.algorithm = "ring";
  v.state = "election";
  auto j = election_json(v);
  CHECK(j["algorithm"] == "ring");
  CHECK(j["coordinator"].is_null());
  CHECK(j["state"] == "election");
  CHECK(j["group"] == "");
}

TEST_CASE("election json: coordinator, state, group and members as the "
          "algorithm reports them",
          "[http_api][election]") {
  election_view v;
  v.algorithm = "invitation";
  v.coordinator = "n7";
  v.state = "normal";
  v.group = "n7:3";
  v.members = {"n1", "n7"};
  v.malformed = 2;
  auto j = election_json(v);
  CHECK(j["coordinator"] == "n7");
  CHECK(j["group"] == "n7:3");
  CHECK(j["members"] == nlohmann::json::array({"n1", "n7"}));
  CHECK(j["malformed_messages"] == 2);
}
