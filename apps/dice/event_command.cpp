#include "event_command.hpp"

#include <chrono>
#include <iostream>
#include <thread>

namespace dice::cli {

namespace {

int error(const std::string& why, int code) {
  std::cerr << "dice: error: " << why << "\n";
  return code;
}

/// How often watch asks the node for new events.
constexpr auto poll_every = std::chrono::milliseconds(200);

} // namespace

int event_command(client& node, const std::vector<std::string>& words,
                  long long count, std::uint64_t since, bool json) {
  if (words.size() == 3 && words[1] == "watch") {
    long long printed = 0;
    for (;;) {
      auto r = node.get("/events", {{"topic", words[2]}, {"since", std::to_string(since)}});
      if (!r.ok())
        return error(r.error, 1);
      for (const auto& e : r.body["events"]) {
        if (json)
          std::cout << e.dump() << std::endl;
        else
          std::cout << e.value("origin", "") << "#" << e.value("seq", 0) << " "
                    << e.value("data", "") << std::endl;
        if (count > 0 && ++printed >= count)
          return 0;
      }
      since = r.body.value("next", since);
      std::this_thread::sleep_for(poll_every);
    }
  }
  if (words.size() == 4 && words[1] == "publish") {
    auto r = node.post("/events", {{"topic", words[2]}, {"data", words[3]}});
    if (!r.ok())
      return error(r.error, 1);
    if (json)
      std::cout << r.body.dump() << "\n";
    else
      std::cout << r.body.value("origin", "") << "#" << r.body.value("seq", 0) << "\n";
    return 0;
  }
  return error("usage: dice event publish TOPIC DATA | dice event watch TOPIC "
               "[--count N] [--since INDEX]", 2);
}

} // namespace dice::cli
