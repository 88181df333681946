#pragma once
// What the dice CLI prints for people, from the node's JSON answers: plain
// functions, so the text is tested without a node.
#include <cstddef>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace dice::cli {

/// Where `dice submit --wait` stands.
struct tally {
  std::size_t done = 0, failed = 0, expired = 0, canceled = 0, removed = 0,
              running = 0,
              claimed = 0; // claimed by a node ahead of a free slot

  std::map<std::string, std::size_t> done_on;    // done tasks by executor
  std::map<std::string, std::size_t> running_on; // running now, by node
  std::size_t ended() const {
    return done + failed + expired + canceled + removed;
  }
};

/// One progress line: ended of total with how each ended, running (and
/// claimed ahead, if any), the rate
/// (once a second has passed and a task ended) and the ETA (once there is a
/// rate), then per node "ID:DONE" (+RUNNING while it runs some). `bar`: the
/// terminal form with a bar of # and . `width` (a terminal's columns; 0:
/// any length): the line stays shorter, the bar shrinking or going and
/// the nodes that do not fit replaced by "...".
std::string progress_text(const tally& t, std::size_t total, double seconds,
                          bool bar, std::size_t width = 0);

/// GET /stats as sections of "name  value" lines.
std::string stats_text(const nlohmann::json& stats);
/// GET /tasks/{id} as "field: value" lines (times as UTC, result last).
std::string task_text(const nlohmann::json& task);
/// GET /tasks as a table, ids in numeric order ("a-2" before "a-10").
std::string tasks_table(const nlohmann::json& body);
/// Tasks with their results: "ID STATE RESULT" lines.
std::string results_table(const nlohmann::json& tasks);

} // namespace dice::cli
