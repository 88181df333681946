// Embeds one node, runs one task of its own kind, prints the result.
#include <iostream>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <dice/dice.hpp>

int main() {
  caf::actor_system_config cfg;
  dice::embed::prepare(cfg);
  caf::actor_system sys{cfg};
  dice::embed::options opts;
  opts.id = "consumer";
  opts.listen = "127.0.0.1:0";
  dice::embed::node node{sys, opts};
  node.add_kind("reverse", [](const std::string& p, const std::function<bool()>&) {
    return dice::embed::outcome::success(std::string(p.rbegin(), p.rend()));
  });
  node.start();
  auto end = node.await(node.submit({"reverse", "hello"}), std::chrono::seconds(30));
  if (!end || end->state != "done")
    return 1;
  std::cout << "consumer: reverse -> '" << end->result << "'\n";
  return 0;
}
