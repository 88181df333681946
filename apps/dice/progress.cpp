#include "progress.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

namespace dice::cli {

namespace {

using clock = std::chrono::steady_clock;

struct tally {
  std::size_t done = 0, failed = 0, canceled = 0, removed = 0, running = 0;
  std::map<std::string, std::size_t> per_node; // done tasks by executor
  std::size_t ended() const { return done + failed + canceled + removed; }
};

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
      if (state == "running") {
        ++running;
        continue;
      }
      if (state == "done") {
        ++t.done;
        if (row["node"].is_string())
          ++t.per_node[row["node"].get<std::string>()];
      } else if (state == "failed") {
        ++t.failed;
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
  return true;
}

std::string shares(const tally& t) {
  std::string out;
  for (auto& [node, n] : t.per_node)
    out += (out.empty() ? "" : " ") + node + ":" + std::to_string(n);
  return out;
}

void draw(const tally& t, std::size_t total, double secs, bool tty) {
  double rate = secs > 0 ? t.ended() / secs : 0;
  double eta = rate > 0 ? (total - t.ended()) / rate : 0;
  char line[256];
  if (tty) {
    const int width = 30;
    int filled = total ? static_cast<int>(width * t.ended() / total) : width;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::snprintf(line, sizeof(line),
                  "\r[%s] %zu/%zu done  %zu running  %.1f/s  ETA %.0fs  ", bar.c_str(),
                  t.ended(), total, t.running, rate, eta);
    std::cout << line << shares(t) << "\033[K" << std::flush;
  } else {
    std::snprintf(line, sizeof(line), "%zu/%zu done, %zu running, %.1f/s, ETA %.0fs; ",
                  t.ended(), total, t.running, rate, eta);
    std::cout << line << "per node: " << shares(t) << "\n" << std::flush;
  }
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
                                    {"failed", t.failed}, {"canceled", t.canceled},
                                    {"removed", t.removed}, {"seconds", elapsed},
                                    {"per_node", t.per_node}, {"ok", ok}}
                       .dump()
                  << "\n";
      } else {
        if (tty)
          std::cout << "\n";
        std::printf("%s: %zu done, %zu failed, %zu canceled, %zu removed of %zu in %.1fs\n",
                    ok ? "finished" : (finished ? "finished with problems" : "timed out"),
                    t.done, t.failed, t.canceled, t.removed, wanted.size(), elapsed);
      }
      return ok ? 0 : 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

} // namespace dice::cli
