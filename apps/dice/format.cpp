#include "format.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iomanip>
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

std::vector<nlohmann::json> sorted_by_id(const nlohmann::json& tasks) {
  std::vector<nlohmann::json> rows(tasks.begin(), tasks.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return id_before(a.value("id", ""), b.value("id", ""));
  });
  return rows;
}

} // namespace

std::string progress_text(const tally& t, std::size_t total, double seconds,
                          bool bar) {
  std::ostringstream out;
  if (bar) {
    const std::size_t width = 30;
    auto filled = total ? width * t.ended() / total : width;
    out << "[" << std::string(filled, '#') << std::string(width - filled, '.')
        << "] ";
  }
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
  // A rate over less than a second (a batch that ended at once) is noise;
  // an ETA needs a rate.
  if (seconds >= 1 && t.ended() > 0) {
    double rate = t.ended() / seconds;
    out << ", " << std::fixed << std::setprecision(1) << rate << "/s";
    if (t.ended() < total)
      out << ", ETA " << std::setprecision(0) << (total - t.ended()) / rate << "s";
  }
  std::map<std::string, std::pair<std::size_t, std::size_t>> nodes;
  for (auto& [n, k] : t.done_on)
    nodes[n].first = k;
  for (auto& [n, k] : t.running_on)
    nodes[n].second = k;
  if (!nodes.empty()) {
    out << "; per node:";
    for (auto& [n, k] : nodes) {
      out << " " << n << ":" << k.first;
      if (k.second)
        out << "+" << k.second;
    }
  }
  return out.str();
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
  std::ostringstream out;
  out << std::left << std::setw(28) << "ID" << std::setw(8) << "KIND"
      << std::setw(10) << "STATE" << std::setw(14) << "NODE" << "ATTEMPTS\n";
  for (auto& t : sorted_by_id(body.at("tasks")))
    out << std::left << std::setw(28) << t.value("id", "") << std::setw(8)
        << t.value("kind", "") << std::setw(10) << t.value("state", "")
        << std::setw(14) << str(t["node"]) << t.value("attempts", 0) << "\n";
  if (body.contains("next_after"))
    out << "(more: --after " << str(body["next_after"]) << ")\n";
  return out.str();
}

std::string results_table(const nlohmann::json& tasks) {
  std::ostringstream out;
  for (auto& t : sorted_by_id(tasks)) {
    auto state = t.value("state", "");
    std::string what = t.contains("result") ? str(t["result"])
                       : t.contains("reason") ? str(t["reason"])
                                              : "";
    out << std::left << std::setw(28) << t.value("id", "") << std::setw(10)
        << state << what << "\n";
  }
  return out.str();
}

} // namespace dice::cli
