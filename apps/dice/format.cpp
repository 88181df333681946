#include "format.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include "known_tasks/id_order.hpp"

namespace dice::cli {

namespace {

std::string str(const nlohmann::json& v) {
  if (v.is_null())
    return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string utc(long long ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof(out), "%s.%03lld UTC", buf, ms % 1000);
  return out;
}

// Rows as columns two spaces apart, each as wide as its longest cell
// (ids of any length stay apart from the next column).
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      width.resize(std::max(width.size(), r.size()));
      width[i] = std::max(width[i], r[i].size());
    }
  std::ostringstream out;
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      out << r[i];
      if (i + 1 < r.size())
        out << std::string(width[i] - r[i].size() + 2, ' ');
    }
    out << "\n";
  }
  return out.str();
}

std::vector<nlohmann::json> sorted_by_id(const nlohmann::json& tasks) {
  std::vector<nlohmann::json> rows(tasks.begin(), tasks.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return id_before(a.value("id", ""), b.value("id", ""));
  });
  return rows;
}

} // namespace

std::string progress_text(const tally& t, std::size_t total, double seconds,
                          bool bar, std::size_t width) {
  std::ostringstream out;
  out << t.ended() << "/" << total << " ended (" << t.done << " done";
  if (t.failed)
    out << ", " << t.failed << " failed";
  if (t.expired)
    out << ", " << t.expired << " expired";
  if (t.canceled)
    out << ", " << t.canceled << " canceled";
  if (t.removed)
    out << ", " << t.removed << " removed";
  out << "), " << t.running << " running";
  if (t.claimed)
    out << ", " << t.claimed << " claimed";
  // A rate over less than a second (a batch that ended at once) is noise;
  // an ETA needs a rate.
  if (seconds >= 1 && t.ended() > 0) {
    double rate = t.ended() / seconds;
    out << ", " << std::fixed << std::setprecision(1) << rate << "/s";
    if (t.ended() < total)
      out << ", ETA " << std::setprecision(0) << (total - t.ended()) / rate << "s";
  }
  auto line = out.str();
  std::map<std::string, std::pair<std::size_t, std::size_t>> nodes;
  for (auto& [n, k] : t.done_on)
    nodes[n].first = k;
  for (auto& [n, k] : t.running_on)
    nodes[n].second = k;
  std::vector<std::string> entries;
  std::size_t entries_size = nodes.empty() ? 0 : std::string("; per node:").size();
  for (auto& [n, k] : nodes) {
    entries.push_back(" " + n + ":" + std::to_string(k.first)
                      + (k.second ? "+" + std::to_string(k.second) : ""));
    entries_size += entries.back().size();
  }
  // Within `width`, the line never reaches the last column: a terminal
  // wraps there, and every redraw would scroll. The bar takes 30 cells
  // when everything fits, else 10 and the nodes what is left, else what
  // is left (5 at least).
  std::size_t room = width == 0 ? std::string::npos : width - 1;
  if (bar) {
    std::size_t cells = 30;
    if (width != 0) {
      auto left = room > line.size() + 3 ? room - line.size() - 3 : 0;
      if (left >= entries_size + 10)
        cells = std::min<std::size_t>(30, left - entries_size);
      else
        cells = left >= 5 ? std::min<std::size_t>(10, left) : 0;
    }
    if (cells > 0) {
      auto filled = total ? cells * t.ended() / total : cells;
      line = "[" + std::string(filled, '#') + std::string(cells - filled, '.')
             + "] " + line;
    }
  }
  if (!entries.empty()) {
    std::string part = "; per node:";
    std::size_t shown = 0;
    for (const auto& entry : entries) {
      // Room left for " ..." when some nodes do not fit.
      bool last = shown + 1 == entries.size();
      if (room != std::string::npos
          && line.size() + part.size() + entry.size() + (last ? 0 : 4) > room)
        break;
      part += entry;
      ++shown;
    }
    if (shown > 0)
      line += part + (shown < entries.size() ? " ..." : "");
  }
  if (line.size() > room)
    line.resize(room);
  return line;
}

std::string stats_text(const nlohmann::json& s) {
  std::ostringstream out;
  // Nested objects become sections, their numbers "name  value" lines.
  auto section = [&](const std::string& title, const nlohmann::json& obj,
                     auto& self, int depth) -> void {
    out << std::string(depth * 2, ' ') << title << "\n";
    for (auto& [k, v] : obj.items()) {
      if (v.is_object()) {
        self(k, v, self, depth + 1);
        continue;
      }
      out << std::string(depth * 2 + 2, ' ') << std::left << std::setw(26) << k
          << " " << str(v) << "\n";
    }
  };
  out << "node " << s.value("id", "?") << "\n";
  for (const char* key : {"tasks", "executions", "queue", "wire", "membership", "http"})
    if (s.contains(key) && s[key].is_object())
      section(key, s[key], section, 0);
  for (auto& [k, v] : s.items())
    if (v.is_object() && k != "tasks" && k != "executions" && k != "queue"
        && k != "wire" && k != "membership" && k != "http")
      section(k, v, section, 0);
  return out.str();
}

std::string task_text(const nlohmann::json& t) {
  std::ostringstream out;
  static const char* order[] = {"id", "kind", "state", "node", "attempts",
                                "priority", "enqueuer", "owner", "payload",
                                "ready_at_ms", "started_at_ms", "finished_at_ms",
                                "reason", "result"};
  auto line = [&](const std::string& k, const nlohmann::json& v) {
    std::string name = k, value = str(v);
    // No node: nobody claimed it (a "-" alone reads as a missing field).
    if (k == "node" && v.is_null())
      value = t.value("state", "") == "ready" ? "- (not claimed yet)"
                                               : "- (never claimed)";
    if (k.size() > 6 && k.compare(k.size() - 6, 6, "_at_ms") == 0) {
      name = k.substr(0, k.size() - 6);
      if (v.is_number())
        value = utc(v.get<long long>());
    }
    out << std::left << std::setw(10) << name + ":" << " " << value << "\n";
  };
  for (auto* k : order)
    if (t.contains(k))
      line(k, t[k]);
  for (auto& [k, v] : t.items())
    if (std::find_if(std::begin(order), std::end(order),
                     [&](const char* o) { return k == o; }) == std::end(order))
      line(k, v);
  return out.str();
}

std::string tasks_table(const nlohmann::json& body) {
  std::vector<std::vector<std::string>> rows{{"ID", "KIND", "STATE", "NODE", "ATTEMPTS"}};
  for (auto& t : sorted_by_id(body.at("tasks")))
    rows.push_back({t.value("id", ""), t.value("kind", ""), t.value("state", ""),
                    str(t["node"]), std::to_string(t.value("attempts", 0))});
  auto out = columns(rows);
  if (body.contains("next_after"))
    out += "(more: --after " + str(body["next_after"]) + ")\n";
  return out;
}

std::string results_table(const nlohmann::json& tasks) {
  std::vector<std::vector<std::string>> rows;
  for (auto& t : sorted_by_id(tasks)) {
    std::string what = t.contains("result") ? str(t["result"])
                       : t.contains("reason") ? str(t["reason"])
                                              : "";
    rows.push_back({t.value("id", ""), t.value("state", ""), what});
  }
  return columns(rows);
}

} // namespace dice::cli
