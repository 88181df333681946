#include "progress.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <iostream>
#include <map>
#include <set>
#include <thread>
#include <sys/ioctl.h>
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
          std::vector<std::string>& failed, std::string& error) {
  std::vector<std::string> ids(open.begin(), open.end());
  std::size_t running = 0, claimed = 0;
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
      if (state == "claimed") {
        ++claimed;
        continue;
      }
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
        failed.push_back(row.value("id", ""));
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
  t.claimed = claimed;
  t.running_on = std::move(running_on);
  return true;
}

// The terminal's columns (80 if it does not say).
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

void draw(const tally& t, std::size_t total, double secs, bool tty) {
  // Redrawn in place: a line that reached the last column would wrap, and
  // every redraw would then scroll a line.
  if (tty)
    std::cout << "\r" << progress_text(t, total, secs, true, terminal_width())
              << "\033[K" << std::flush;
  else
    std::cout << progress_text(t, total, secs, false) << "\n" << std::flush;
}

// The HTTP API of every other live member, from GET /network: where to
// follow the tasks if this node goes away.
std::vector<std::string> other_members(client& node) {
  std::vector<std::string> urls;
  std::vector<member_api> members;
  std::string self, error;
  if (!network_members(node, members, self, error))
    return urls;
  for (const auto& m : members)
    if (m.id != self && m.state == "alive" && !m.url.empty())
      urls.push_back(m.url);
  return urls;
}

// "ID: reason" for the first few failed tasks, then how many more.
std::vector<std::string> failure_reasons(client& node,
                                         const std::vector<std::string>& failed) {
  constexpr std::size_t shown = 3;
  std::vector<std::string> lines;
  std::string list;
  for (std::size_t i = 0; i < failed.size() && i < shown; ++i)
    list += (list.empty() ? "" : ",") + failed[i];
  if (list.empty())
    return lines;
  auto a = node.get("/tasks", {{"ids", list}, {"with", "result"}});
  if (a.ok())
    for (auto& row : a.body["tasks"])
      lines.push_back(row.value("id", "") + ": "
                      + row.value("reason", std::string("(no reason given)")));
  if (failed.size() > shown)
    lines.push_back("and " + std::to_string(failed.size() - shown)
                    + " more failed (dice tasks --state failed)");
  return lines;
}

// How to follow the same tasks again.
std::string follow_hint(const wait_request& w) {
  if (!w.ids_file.empty())
    return "dice wait --ids-file " + w.ids_file;
  return "dice wait ID... (the ids printed above)";
}

// The pause between two polls, 200 ms at most: the node holds a look at
// one open task until it ends (GET /tasks/{id}?wait_ms), so the last
// task's end is seen at once. A node that answers sooner without an end
// (it holds too many such looks) leaves the rest of the pause to sleep.
void between_polls(client& node, const std::set<std::string>& open) {
  constexpr auto pause = std::chrono::milliseconds(200);
  auto from = clock::now();
  if (!open.empty()) {
    auto a = node.get("/tasks/" + *open.begin(),
                      {{"wait_ms", std::to_string(pause.count())}});
    if (a.ok() && a.body.is_object()) {
      auto state = a.body.value("state", "");
      if (state == "done" || state == "failed" || state == "expired"
          || state == "canceled" || state == "removed")
        return;
    }
  }
  auto left = pause - (clock::now() - from);
  if (left > clock::duration::zero())
    std::this_thread::sleep_for(left);
}

} // namespace

int wait_for(client& first, const wait_request& w) {
  std::set<std::string> open(w.ids.begin(), w.ids.end());
  const std::size_t total = open.size();
  bool tty = !w.json && isatty(STDOUT_FILENO);
  auto start = clock::now();
  auto last_line = start - std::chrono::seconds(10);
  tally t;
  std::vector<std::string> failed;
  // The node followed now, and the others to turn to, in order.
  std::unique_ptr<client> owned;
  client* node = &first;
  auto others = other_members(first);
  std::size_t next_other = 0;
  int misses = 0;
  std::string error;
  auto finish = [&](int code, const std::string& headline, double elapsed) {
    if (w.json) {
      nlohmann::json j{{"ids", w.ids},        {"done", t.done},
                       {"failed", t.failed},   {"expired", t.expired},
                       {"canceled", t.canceled}, {"removed", t.removed},
                       {"seconds", elapsed},   {"per_node", t.done_on},
                       {"ok", code == all_done}, {"exit", code}};
      if (code == unreachable || code == timed_out)
        j["error"] = headline;
      std::cout << j.dump() << "\n";
      return code;
    }
    if (tty)
      std::cout << "\n";
    std::printf("%s: %zu done, %zu failed, %zu expired, %zu canceled, %zu "
                "removed of %zu in %.1fs\n",
                headline.c_str(), t.done, t.failed, t.expired, t.canceled,
                t.removed, total, elapsed);
    if (code != unreachable)
      for (const auto& line : failure_reasons(*node, failed))
        std::printf("  failed %s\n", line.c_str());
    if (code == timed_out || code == unreachable)
      std::printf("%zu task(s) not ended yet go on in the cluster; follow them "
                  "with: %s\n",
                  total - t.ended(), follow_hint(w).c_str());
    std::fflush(stdout);
    return code;
  };
  for (;;) {
    auto elapsed = std::chrono::duration<double>(clock::now() - start).count();
    if (!poll(*node, open, t, failed, error)) {
      // A node restarting or busy for a moment is not the end; after a
      // second of silence another member takes over; with none left, 5 s.
      ++misses;
      if (misses >= 5 && next_other < others.size()) {
        std::cerr << (tty ? "\n" : "") << "dice: " << error
                  << "; following the tasks through " << others[next_other]
                  << "\n";
        owned = first.at(others[next_other++]);
        node = owned.get();
        misses = 0;
      } else if (misses >= 25) {
        std::cerr << (tty ? "\n" : "") << "dice: error: " << error << "\n";
        return finish(unreachable, "no member answers", elapsed);
      }
    } else {
      misses = 0;
    }
    bool finished = t.ended() >= total;
    if (!w.json && (tty || finished
                    || clock::now() - last_line >= std::chrono::seconds(1))) {
      draw(t, total, elapsed, tty);
      last_line = clock::now();
    }
    if (finished) {
      bool ok = t.done == total;
      return finish(ok ? all_done : some_failed,
                    ok ? "finished" : "finished with problems", elapsed);
    }
    if (elapsed > w.timeout_s)
      return finish(timed_out, "timed out", elapsed);
    between_polls(*node, open);
  }
}

bool read_ids_file(const std::string& path, std::vector<std::string>& ids,
                   std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "--ids-file: cannot read '" + path + "'";
    return false;
  }
  for (std::string line; std::getline(in, line);) {
    auto b = line.find_first_not_of(" \t\r");
    auto e = line.find_last_not_of(" \t\r");
    if (b != std::string::npos)
      ids.push_back(line.substr(b, e - b + 1));
  }
  if (ids.empty()) {
    error = "--ids-file: '" + path + "' names no task";
    return false;
  }
  return true;
}

bool write_ids_file(const std::string& path, const std::vector<std::string>& ids,
                    std::string& error) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& id : ids)
    out << id << "\n";
  out.flush();
  if (!out) {
    error = "--ids-file: cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace dice::cli
