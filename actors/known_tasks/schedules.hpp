#pragma once
// Periodic schedules without a scheduler. A schedule is a record in the
// replicated queue (kind "dice.schedule", never claimed). Every node
// derives its ticks alike, from the epoch (--every) or from cron fields
// in UTC, and each tick becomes one task whose id derives from the
// schedule's name and the tick's time: however many nodes enqueue a tick,
// the replicas merge the copies into one task. The node that enqueues a
// tick is the first by rendezvous rank among the live nodes; each next one
// waits a stagger more and enqueues it only if it has not heard of it, so a
// dead first node costs a tick one stagger of delay, not the tick. A node
// that comes to hold a schedule late (restarted, catching up) holds back
// the ticks that fell due before, to hear of those its peers enqueued.
#include <bitset>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/time.hpp"
#include "dice.pb.h"

namespace dice {

constexpr const char* schedule_kind = "dice.schedule";

/// Five cron fields (minute hour day-of-month month day-of-week), each
/// `*`, a number, a range a-b, a list a,b and a step */n or a-b/n.
struct cron_expr {
  std::bitset<60> minute;
  std::bitset<24> hour;
  std::bitset<32> dom;
  std::bitset<13> month;
  std::bitset<7> dow; // 0 Sunday (7 is read as 0)
  bool any_dom = true, any_dow = true;
};

/// The expression, or nullopt with `error` set.
std::optional<cron_expr> parse_cron(const std::string& text, std::string& error);
/// The first whole minute (wall ms, UTC) after `after_ms` that matches;
/// nullopt if none within five years.
std::optional<millis> next_cron(const cron_expr& c, millis after_ms);

/// Empty if the schedule can run, else why not.
std::string schedule_problem(const wire::ScheduleSpec& s);
/// The first tick of `s` after `after_ms` (no jitter); nullopt if none.
std::optional<millis> next_tick(const wire::ScheduleSpec& s, millis after_ms);
/// How much later tick `tick` is due: the same on every node, under jitter_ms.
millis tick_jitter(const wire::ScheduleSpec& s, millis tick);
/// The id of the schedule's record, and the key of one tick's task.
std::string schedule_record_id(const std::string& name);
std::string tick_key(const std::string& name, millis tick);
/// The task of tick `tick` of `s` (id, key, the task template's fields).
wire::TaskSpec tick_task(const wire::ScheduleSpec& s, millis tick);
/// The cluster-wide lock every tick of an exclusive schedule holds while
/// it runs, and whether `s` is exclusive (its task template names it).
std::string schedule_lock(const std::string& name);
bool is_exclusive(const wire::ScheduleSpec& s);

class schedule_ticker {
public:
  /// `stagger_ms`: how much later each next node in rank enqueues a tick
  /// it has not heard of; `late_ms`: a tick older than this when it could
  /// be enqueued was missed (catch_up decides); `hold_ms`: how long a node
  /// that has just come to hold a schedule (restarted, or late to hear of
  /// it) waits before it enqueues the ticks that fell due before: time to
  /// hear of those its peers enqueued while it did not hold it.
  schedule_ticker(std::string self, millis stagger_ms, millis late_ms,
                  millis hold_ms = 0);

  /// A schedule held (again): its ticks after max(creation, `now` - late)
  /// are due unless already known.
  void add(const wire::ScheduleSpec& s, millis now);
  void remove(const std::string& name);
  /// A tick's task is known to the replica.
  void seen(const std::string& name, millis tick);
  /// The live nodes, this one included.
  void members(std::vector<std::string> live);
  const std::vector<std::string>& members() const { return live_; }

  struct due_tick {
    std::string name;
    millis tick = 0;
  };
  /// The ticks this node enqueues now; each is then taken as known.
  std::vector<due_tick> due(millis now);
  /// When the next tick falls due here (nullopt: no schedule).
  std::optional<millis> next_due() const;
  std::size_t size() const { return schedules_.size(); }

private:
  struct entry {
    wire::ScheduleSpec spec;
    millis last = 0; // every tick up to this one is known or passed over
    millis held_since = 0; // when this node came to hold it
  };
  // When this node enqueues tick `tick` of `e` if it has not heard of it.
  millis turn(const entry& e, millis tick) const;

  std::string self_;
  millis stagger_ms_, late_ms_, hold_ms_;
  std::vector<std::string> live_;
  std::map<std::string, entry> schedules_;
};

} // namespace dice
