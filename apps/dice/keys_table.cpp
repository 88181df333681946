#include "keys_table.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace dice::cli {

std::vector<key_row> key_rows(const std::vector<member_keys>& members) {
  std::vector<key_row> rows;
  auto row = [&](const std::string& id) -> key_row& {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const key_row& r) { return r.id == id; });
    if (it != rows.end())
      return *it;
    rows.push_back({id, {}, {}});
    return rows.back();
  };
  for (const auto& m : members) {
    auto primary = m.body.value("primary", nlohmann::json(nullptr));
    for (const auto& k : m.body.value("keys", nlohmann::json::array())) {
      auto id = k.value("id", "");
      if (id.empty())
        continue;
      auto& r = row(id);
      r.held_by.push_back(m.node);
      if (primary.is_string() && primary.get<std::string>() == id)
        r.primary_on.push_back(m.node);
    }
  }
  return rows;
}

std::string key_table(const std::vector<key_row>& rows, std::size_t members) {
  std::ostringstream out;
  out << std::left << std::setw(10) << "KEY" << std::setw(8) << "HELD"
      << "PRIMARY ON\n";
  for (const auto& r : rows) {
    std::string on;
    for (const auto& n : r.primary_on)
      on += (on.empty() ? "" : " ") + n;
    out << std::setw(10) << r.id << std::setw(8)
        << (std::to_string(r.held_by.size()) + "/" + std::to_string(members))
        << (on.empty() ? "-" : on) << "\n";
  }
  return out.str();
}

} // namespace dice::cli
