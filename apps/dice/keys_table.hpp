#pragma once
// dice keys list: which members hold each key and where it signs, from the
// members' GET /keys answers. Plain functions, tested without a cluster.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dice::cli {

/// One member's GET /keys answer.
struct member_keys {
  std::string node;     // member id
  nlohmann::json body;  // {"primary", "keys": [{"id", ...}]}
};

/// One key across the members that answered.
struct key_row {
  std::string id;
  std::vector<std::string> held_by;    // member ids, in the order given
  std::vector<std::string> primary_on; // the members it signs on
};

/// A row per key, in the order first seen.
std::vector<key_row> key_rows(const std::vector<member_keys>& members);

/// The table dice keys list prints: KEY, HELD (n/N), PRIMARY ON.
std::string key_table(const std::vector<key_row>& rows, std::size_t members);

} // namespace dice::cli
