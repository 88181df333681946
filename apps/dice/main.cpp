// dice: the command-line client of a DiCE node's HTTP API.
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace {

const char* usage =
  "dice: talk to a DiCE node over its HTTP API.\n"
  "Usage: dice [--node URL] [--json] COMMAND\n"
  "Commands:\n"
  "  health   is the node up\n"
  "  nodes    the node's membership view\n"
  "  stats    the node's counters\n"
  "Options:\n"
  "  --node URL   node API (default $DICE_NODE or http://127.0.0.1:8400)\n"
  "  --json       print the raw JSON answer\n"
  "  -h, --help   print this help\n";

int fail(const std::string& why, int code = 1) {
  std::cerr << "dice: error: " << why << "\n";
  return code;
}

void print_nodes(const nlohmann::json& body) {
  std::cout << std::left << std::setw(16) << "ID" << std::setw(22) << "ADDR"
            << std::setw(9) << "STATE" << std::right << std::setw(10)
            << "SEEN(ms)" << "\n";
  for (auto& n : body.at("nodes")) {
    auto id = n.at("id").get<std::string>();
    if (id == body.at("self").get<std::string>())
      id += " *";
    std::cout << std::left << std::setw(16) << id << std::setw(22)
              << n.at("addr").get<std::string>() << std::setw(9)
              << n.at("state").get<std::string>() << std::right
              << std::setw(10) << n.at("last_seen_ms").get<long long>() << "\n";
  }
}

} // namespace

int main(int argc, char** argv) {
  std::string url = std::getenv("DICE_NODE") ? std::getenv("DICE_NODE")
                                             : "http://127.0.0.1:8400";
  bool json = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << usage;
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--node") {
      if (++i == argc)
        return fail("--node needs a URL", 2);
      url = argv[i];
    } else if (a.rfind("--", 0) == 0) {
      return fail("unknown option " + a + " (see dice --help)", 2);
    } else {
      args.push_back(a);
    }
  }
  if (args.size() != 1)
    return fail("expected one command (see dice --help)", 2);
  auto& cmd = args[0];
  if (cmd != "health" && cmd != "nodes" && cmd != "stats")
    return fail("unknown command '" + cmd + "' (see dice --help)", 2);
  httplib::Client cli(url);
  cli.set_connection_timeout(2);
  cli.set_read_timeout(5);
  auto res = cli.Get("/" + cmd);
  if (!res)
    return fail("cannot reach " + url + ": " + httplib::to_string(res.error()));
  auto body = nlohmann::json::parse(res->body, nullptr, false);
  if (body.is_discarded())
    return fail("node answered with invalid JSON");
  if (res->status != 200)
    return fail(url + " answered " + std::to_string(res->status) + ": "
                + body.value("error", res->body));
  if (json || cmd == "stats")
    std::cout << body.dump(json ? -1 : 2) << "\n";
  else if (cmd == "nodes")
    print_nodes(body);
  else
    std::cout << body.at("id").get<std::string>() << " ok\n";
  return 0;
}
