#include "drain_command.hpp"

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

namespace dice::cli {

namespace {

// The HTTP API of member `id`, from `node`'s GET /network ("" if unknown).
// A member says where its API is every few seconds: one that joined a
// moment ago is asked about again, for up to 5 s.
std::string url_of_member(client& node, const std::string& id, std::string& error) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (attempt > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::vector<member_api> members;
    std::string self;
    if (!network_members(node, members, self, error))
      return {};
    bool member = false;
    for (const auto& m : members) {
      if (m.id != id)
        continue;
      member = true;
      if (!m.url.empty())
        return m.url;
    }
    if (!member) {
      error = "no member " + id + " known to " + node.url() + " (see dice nodes)";
      return {};
    }
  }
  error = "node " + id + " has not said where its HTTP API is (started without --http?)";
  return {};
}

} // namespace

int drain_command(client& node, const args& a, bool undrain, bool json) {
  const char* usage = undrain ? "usage: dice undrain [NODE]"
                              : "usage: dice drain [NODE] [--leave] [--wait] [--timeout S]";
  if (a.words.size() > 2)
    return fail(usage, 2);
  std::unique_ptr<client> other;
  client* target = &node;
  if (a.words.size() == 2) {
    std::string error;
    auto url = url_of_member(node, a.words[1], error);
    if (url.empty())
      return fail(error);
    other = node.at(url);
    target = other.get();
  }
  if (undrain) {
    auto r = target->del("/drain");
    if (!r.ok())
      return fail(r.error);
    std::cout << (json ? r.body.dump() : target->url() + " claims tasks again") << "\n";
    return 0;
  }
  bool leave = a.opts.count("--leave") > 0;
  long long timeout_s = 3600;
  if (a.opts.count("--timeout") && !number(a.opts.at("--timeout"), 1, 31'536'000, timeout_s))
    return fail("--timeout must be a number of seconds", 2);
  auto r = target->post("/drain", {{"leave", leave}});
  if (!r.ok())
    return fail(r.error);
  if (!json)
    std::cout << target->url() << " claims nothing new"
              << (leave ? "; it stops once it holds nothing" : "") << "\n";
  if (a.opts.count("--wait") == 0) {
    if (json)
      std::cout << r.body.dump() << "\n";
    return 0;
  }
  // Until it holds no claim or execution (or, leaving, stops answering).
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto s = target->get("/stats");
    if (!s.ok()) {
      if (leave) {
        std::cout << (json ? nlohmann::json{{"drained", true}, {"left", true}}.dump()
                           : target->url() + " drained and stopped") << "\n";
        return 0;
      }
      return fail(s.error, 3);
    }
    auto held = s.body["draining"].value("held", 0);
    if (held == 0 && !leave) {
      std::cout << (json ? nlohmann::json{{"drained", true}, {"left", false}}.dump()
                         : target->url() + " drained: it holds no task") << "\n";
      return 0;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(timeout_s))
      return fail("timed out: " + std::to_string(held) + " task(s) still held", 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

} // namespace dice::cli
