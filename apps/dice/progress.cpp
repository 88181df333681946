#include "progress.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

#include "format.hpp"

namespace dice::cli {

namespace {

using clock = std::chrono::steady_clock;

// Ids a GET /tasks?ids=... names at once: well inside the node's limit
// (max_query_ids) and its 8 KiB URI.
constexpr std::size_t ids_per_request = 100;

// Asks the node for the tasks not yet ended (an ended task stays ended, so
// it is not asked again: a poll costs what is left, not what was
// submitted) and moves those that ended into `t`. False if the node did
// not answer; `error` says why.
bool poll(client& node, std::set<std::string>& open, tally& t,
          std::string& error) {
  std::vector<std::string> ids(open.begin(), open.end());
  std::size_t running = 0;
  std::map<std::string, std::size_t> running_on;
  for (std::size_t from = 0; from < ids.size(); from += ids_per_request) {
    std::string list;
    for (std::size_t i = from; i < ids.size() && i < from + ids_per_request; ++i)
      list += (list.empty() ? "" : ",") + ids[i];
    auto a = node.get("/tasks", {{"ids", list}});
    if (!a.ok()) {
      error = a.error;
      return false;
    }
    for (auto& row : a.body["tasks"]) {
      auto state = row.value("state", "");
      auto node = row["node"].is_string() ? row["node"].get<std::string>() : "";
      if (state == "running") {
        ++running;
        if (!node.empty())
          ++running_on[node];
        continue;
      }
      if (state == "done") {
        ++t.done;
        if (!node.empty())
          ++t.done_on[node];
      } else if (state == "failed") {
        ++t.failed;
      } else if (state == "expired") {
        ++t.expired;
      } else if (state == "canceled") {
        ++t.canceled;
      } else if (state == "removed") {
        ++t.removed;
      } else {
        continue; // still ready
      }
      open.erase(row.value("id", ""));
    }
  }
  t.running = running;
  t.running_on = std::move(running_on);
  return true;
}

void draw(const tally& t, std::size_t total, double secs, bool tty) {
  if (tty)
    std::cout << "\r" << progress_text(t, total, secs, true) << "\033[K" << std::flush;
  else
    std::cout << progress_text(t, total, secs, false) << "\n" << std::flush;
}

} // namespace

int wait_for(client& node, const std::vector<std::string>& ids, double timeout_s,
             bool json) {
  std::set<std::string> wanted(ids.begin(), ids.end());
  std::set<std::string> open = wanted;
  bool tty = !json && isatty(STDOUT_FILENO);
  auto start = clock::now();
  auto last_line = start - std::chrono::seconds(10);
  tally t;
  int misses = 0;
  for (;;) {
    auto elapsed = std::chrono::duration<double>(clock::now() - start).count();
    std::string error;
    if (!poll(node, open, t, error)) {
      // A node restarting or busy for a moment is not the end; a gone one is.
      if (++misses >= 25) {
        std::cerr << "\ndice: error: " << error << "\n";
        return 3;
      }
    } else {
      misses = 0;
    }
    bool finished = t.ended() >= wanted.size();
    if (!json && (tty || finished
                  || clock::now() - last_line >= std::chrono::seconds(1))) {
      draw(t, wanted.size(), elapsed, tty);
      last_line = clock::now();
    }
    if (finished || elapsed > timeout_s) {
      bool ok = finished && t.done == wanted.size();
      if (json) {
        std::cout << nlohmann::json{{"ids", ids},       {"done", t.done},
                                    {"failed", t.failed}, {"expired", t.expired},
                                    {"canceled", t.canceled},
                                    {"removed", t.removed}, {"seconds", elapsed},
                                    {"per_node", t.done_on}, {"ok", ok}}
                       .dump()
                  << "\n";
      } else {
        if (tty)
          std::cout << "\n";
        std::printf("%s: %zu done, %zu failed, %zu expired, %zu canceled, %zu removed "
                    "of %zu in %.1fs\n",
                    ok ? "finished" : (finished ? "finished with problems" : "timed out"),
                    t.done, t.failed, t.expired, t.canceled, t.removed, wanted.size(),
                    elapsed);
      }
      return ok ? 0 : 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

} // namespace dice::cli
