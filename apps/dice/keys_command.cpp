#include "keys_command.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "broadcast_bridge/keyring_file.hpp"
#include "keys_table.hpp"

namespace dice::cli {

namespace {

const char* usage = "usage: dice keys list | install FILE|- | use ID | remove ID";

struct member {
  std::string id;
  std::unique_ptr<client> api; // null: its HTTP API is unknown
  std::string problem;         // why it cannot be asked
};

// The live members (alive or suspect) as `node` knows them, each with a
// client of its own HTTP API (its URL from GET /network, https:// when it
// speaks TLS; the same token and CA file as --node). A member says where
// its API is every few seconds: one that joined a moment ago is waited
// for, up to 5 s.
bool live_members(client& node, std::vector<member>& out, std::string& error) {
  for (int attempt = 0;; ++attempt) {
    std::vector<member_api> all;
    std::string self;
    if (!network_members(node, all, self, error))
      return false;
    out.clear();
    bool missing = false;
    for (const auto& m : all) {
      if (m.state == "dead")
        continue;
      member x;
      x.id = m.id;
      if (m.id == self) {
        x.api = node.at(node.url());
      } else if (!m.url.empty()) {
        x.api = node.at(m.url);
      } else {
        missing = true;
        x.problem = "has not said where its HTTP API is (started with --http off?)";
      }
      out.push_back(std::move(x));
    }
    if (!missing || attempt >= 20)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// Every member's GET /keys; false (with the failures printed) if one did
// not answer.
bool all_keys(std::vector<member>& ms, std::vector<member_keys>& got,
              std::vector<std::string>& failed) {
  for (auto& m : ms) {
    if (!m.api) {
      std::cerr << "dice: error: " << m.id << ": " << m.problem << "\n";
      failed.push_back(m.id);
      continue;
    }
    auto r = m.api->get("/keys");
    if (!r.ok()) {
      std::cerr << "dice: error: " << m.id << ": " << r.error << "\n";
      failed.push_back(m.id);
      continue;
    }
    got.push_back({m.id, r.body});
  }
  return failed.empty();
}

std::string joined(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs)
    out += (out.empty() ? "" : ", ") + x;
  return out;
}

int failed_on(const std::vector<std::string>& failed, std::size_t total,
              const std::string& what) {
  return fail(what + " failed on " + std::to_string(failed.size()) + " of "
              + std::to_string(total) + " members: " + joined(failed));
}

// Applies `change` (one request) to every member; one line per member.
template <class Change>
int on_every_member(std::vector<member>& ms, const std::string& what, bool json,
                    Change change) {
  std::vector<std::string> failed;
  auto results = nlohmann::json::object();
  for (auto& m : ms) {
    if (!m.api) {
      std::cerr << "dice: error: " << m.id << ": " << m.problem << "\n";
      failed.push_back(m.id);
      results[m.id] = {{"ok", false}, {"error", m.problem}};
      continue;
    }
    std::string line;
    auto r = change(*m.api, line);
    if (!r.ok() && line.empty()) {
      std::cerr << "dice: error: " << m.id << ": " << r.error << "\n";
      failed.push_back(m.id);
      results[m.id] = {{"ok", false}, {"error", r.error}};
      continue;
    }
    results[m.id] = {{"ok", true}, {"result", line}};
    if (!json)
      std::cout << m.id << ": " << line << "\n";
  }
  if (json)
    std::cout << nlohmann::json{{"members", results}, {"failed", failed}}.dump() << "\n";
  if (!failed.empty())
    return failed_on(failed, ms.size(), what);
  return 0;
}

int list(std::vector<member>& ms, bool json) {
  std::vector<member_keys> got;
  std::vector<std::string> failed;
  all_keys(ms, got, failed);
  auto rows = key_rows(got);
  if (json) {
    auto keys = nlohmann::json::array();
    for (const auto& r : rows)
      keys.push_back({{"id", r.id}, {"held_by", r.held_by}, {"primary_on", r.primary_on}});
    std::cout << nlohmann::json{{"members", ms.size()}, {"keys", keys}, {"failed", failed}}
                   .dump()
              << "\n";
  } else {
    std::cout << key_table(rows, ms.size());
  }
  if (!failed.empty())
    return failed_on(failed, ms.size(), "keys list");
  return 0;
}

} // namespace

int keys_command(client& node, const args& a, bool json) {
  const auto& w = a.words;
  if (w.size() < 2)
    return fail(usage, 2);
  const auto& sub = w[1];
  if ((sub == "list" && w.size() != 2) || (sub != "list" && w.size() != 3))
    return fail(usage, 2);
  std::string key;
  if (sub == "install") {
    std::string error;
    key = dice::read_key_file(w[2], error);
    if (key.empty())
      return fail("keys install: " + error, 2);
  } else if (sub != "list" && sub != "use" && sub != "remove") {
    return fail(usage, 2);
  }
  std::vector<member> ms;
  std::string error;
  if (!live_members(node, ms, error))
    return fail(error);
  if (sub == "list")
    return list(ms, json);
  if (sub == "install") {
    nlohmann::json body{{"key", dice::base64_encode(key)}};
    return on_every_member(ms, "keys install", json, [&](client& c, std::string& line) {
      auto r = c.post("/keys", body);
      if (r.ok())
        line = "installed " + r.body.value("installed", "");
      return r;
    });
  }
  const auto& id = w[2];
  // Both are refused, with nothing changed, unless every live member
  // answers and allows it: a member signing with a key another lacks
  // would have its datagrams dropped there.
  std::vector<member_keys> got;
  std::vector<std::string> failed;
  if (!all_keys(ms, got, failed))
    return fail("keys " + sub + " " + id + " refused, nothing changed: "
                + joined(failed) + " did not answer");
  key_row row{id, {}, {}};
  for (const auto& r : key_rows(got))
    if (r.id == id)
      row = r;
  if (sub == "use") {
    std::vector<std::string> lacking;
    for (const auto& m : ms)
      if (std::find(row.held_by.begin(), row.held_by.end(), m.id) == row.held_by.end())
        lacking.push_back(m.id);
    if (!lacking.empty())
      return fail("keys use " + id + " refused, nothing changed: not held by "
                  + joined(lacking) + " (run dice keys install first)");
    return on_every_member(ms, "keys use", json, [&](client& c, std::string& line) {
      auto r = c.post("/keys/use", {{"id", id}});
      if (r.ok())
        line = "signs with " + id;
      return r;
    });
  }
  if (!row.primary_on.empty())
    return fail("keys remove " + id + " refused, nothing changed: it is the primary "
                "key of " + joined(row.primary_on) + " (run dice keys use with "
                "another key first)");
  return on_every_member(ms, "keys remove", json, [&](client& c, std::string& line) {
    auto r = c.del("/keys/" + id);
    if (r.ok())
      line = "removed " + id;
    else if (r.status == 404)
      line = "does not hold " + id; // removed already: what was asked
    return r;
  });
}

} // namespace dice::cli
