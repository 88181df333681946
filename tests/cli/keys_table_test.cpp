#include <catch2/catch.hpp>

#include "keys_table.hpp"

using namespace dice::cli;

TEST_CASE("dice keys list: each key, how many members hold it, where it signs",
          "[cli][keyring]") {
  std::vector<member_keys> ms = {
    {"n1", {{"primary", "aaaaaaaa"}, {"keys", {{{"id", "aaaaaaaa"}}, {{"id", "bbbbbbbb"}}}}}},
    {"n2", {{"primary", "bbbbbbbb"}, {"keys", {{{"id", "aaaaaaaa"}}, {{"id", "bbbbbbbb"}}}}}},
    {"n3", {{"primary", "aaaaaaaa"}, {"keys", {{{"id", "aaaaaaaa"}}}}}},
  };
  auto rows = key_rows(ms);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id == "aaaaaaaa");
  CHECK(rows[0].held_by == std::vector<std::string>{"n1", "n2", "n3"});
  CHECK(rows[0].primary_on == std::vector<std::string>{"n1", "n3"});
  CHECK(rows[1].held_by == std::vector<std::string>{"n1", "n2"});
  CHECK(rows[1].primary_on == std::vector<std::string>{"n2"});
  auto table = key_table(rows, 3);
  CHECK(table == "KEY       HELD    PRIMARY ON\n"
                 "aaaaaaaa  3/3     n1 n3\n"
                 "bbbbbbbb  2/3     n2\n");
}
