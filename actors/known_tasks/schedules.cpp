#include "known_tasks/schedules.hpp"

#include <algorithm>
#include <ctime>
#include <sstream>

#include "common/hashes.hpp"
#include "known_tasks/task_policy.hpp"

namespace dice {

namespace {

// One cron field into `bits` (values lo..hi); false on bad input.
template <std::size_t N>
bool parse_field(const std::string& field, int lo, int hi, std::bitset<N>& bits,
                 bool& any) {
  any = field == "*";
  std::stringstream parts(field);
  std::string part;
  while (std::getline(parts, part, ',')) {
    int step = 1;
    if (auto slash = part.find('/'); slash != std::string::npos) {
      auto s = part.substr(slash + 1);
      if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
      step = std::stoi(s);
      part = part.substr(0, slash);
      if (step < 1)
        return false;
    }
    int a = lo, b = hi;
    if (part != "*") {
      auto dash = part.find('-');
      auto num = [](const std::string& t, int& v) {
        if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string::npos)
          return false;
        v = std::stoi(t);
        return true;
      };
      if (dash == std::string::npos) {
        if (!num(part, a))
          return false;
        b = step > 1 ? hi : a;
      } else if (!num(part.substr(0, dash), a) || !num(part.substr(dash + 1), b)) {
        return false;
      }
    }
    if (a < lo || b > hi || a > b)
      return false;
    for (int v = a; v <= b; v += step)
      bits.set(static_cast<std::size_t>(v));
  }
  return bits.any();
}

} // namespace

std::optional<cron_expr> parse_cron(const std::string& text, std::string& error) {
  std::stringstream in(text);
  std::vector<std::string> f;
  for (std::string w; in >> w;)
    f.push_back(w);
  if (f.size() != 5) {
    error = "cron '" + text + "' must have five fields: minute hour day month weekday";
    return std::nullopt;
  }
  cron_expr c;
  bool any = false;
  std::bitset<8> dow;
  bool ok = parse_field(f[0], 0, 59, c.minute, any)
            && parse_field(f[1], 0, 23, c.hour, any)
            && parse_field(f[2], 1, 31, c.dom, c.any_dom)
            && parse_field(f[3], 1, 12, c.month, any)
            && parse_field(f[4], 0, 7, dow, c.any_dow);
  if (!ok) {
    error = "cron '" + text + "': a field is not *, N, A-B, a list A,B or a step */N "
            "(minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-7)";
    return std::nullopt;
  }
  for (std::size_t d = 0; d < 7; ++d)
    c.dow[d] = dow[d];
  if (dow[7])
    c.dow[0] = true;
  return c;
}

std::optional<millis> next_cron(const cron_expr& c, millis after_ms) {
  // From the next whole minute on: days that match, then hours, minutes.
  auto t = static_cast<std::time_t>(after_ms / 60'000 * 60 + 60);
  std::tm tm{};
  for (int days = 0; days < 5 * 366 + 1; ++days) {
    gmtime_r(&t, &tm);
    bool dom = c.dom[static_cast<std::size_t>(tm.tm_mday)];
    bool dow = c.dow[static_cast<std::size_t>(tm.tm_wday)];
    // As cron does: with both day fields restricted, either one matches.
    bool day = c.any_dom && c.any_dow ? true
               : c.any_dom            ? dow
               : c.any_dow            ? dom
                                      : dom || dow;
    if (c.month[static_cast<std::size_t>(tm.tm_mon + 1)] && day) {
      for (int h = tm.tm_hour; h < 24; ++h) {
        if (!c.hour[static_cast<std::size_t>(h)])
          continue;
        for (int m = h == tm.tm_hour ? tm.tm_min : 0; m < 60; ++m)
          if (c.minute[static_cast<std::size_t>(m)]) {
            std::tm at = tm;
            at.tm_hour = h;
            at.tm_min = m;
            at.tm_sec = 0;
            return static_cast<millis>(timegm(&at)) * 1000;
          }
      }
    }
    // The next day, from midnight.
    tm.tm_hour = 0;
    tm.tm_min = 0;
    tm.tm_sec = 0;
    t = timegm(&tm) + 86'400;
  }
  return std::nullopt;
}

std::string schedule_problem(const wire::ScheduleSpec& s) {
  const auto& n = s.name();
  if (n.empty() || n.size() > 128
      || !std::all_of(n.begin(), n.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '-' || c == '_' || c == '.';
         }))
    return "'name' must be 1 to 128 letters, digits, '-', '_' or '.'";
  if ((s.every_ms() > 0) == !s.cron().empty())
    return "give 'every_ms' or 'cron', one of them";
  if (s.every_ms() < 0 || (s.every_ms() > 0 && s.every_ms() < 100)
      || s.every_ms() > max_task_wait_ms)
    return "'every_ms' must be from 100 to " + std::to_string(max_task_wait_ms);
  if (!s.cron().empty()) {
    std::string why;
    if (!parse_cron(s.cron(), why))
      return why;
  }
  if (s.jitter_ms() < 0 || s.jitter_ms() > max_task_wait_ms)
    return "'jitter_ms' must be from 0 to " + std::to_string(max_task_wait_ms);
  if (s.catch_up() > 2)
    return "'catch_up' must be last, none or all";
  if (s.task().kind().empty())
    return "'task' must name a kind";
  return {};
}

std::optional<millis> next_tick(const wire::ScheduleSpec& s, millis after_ms) {
  if (s.every_ms() > 0)
    return (after_ms / s.every_ms() + 1) * s.every_ms();
  std::string why;
  auto c = parse_cron(s.cron(), why);
  return c ? next_cron(*c, after_ms) : std::nullopt;
}

millis tick_jitter(const wire::ScheduleSpec& s, millis tick) {
  if (s.jitter_ms() <= 0)
    return 0;
  auto h = rendezvous_hash(tick_key(s.name(), tick), "jitter");
  return static_cast<millis>(h % static_cast<std::uint64_t>(s.jitter_ms()));
}

std::string schedule_record_id(const std::string& name) {
  return "sch-" + keyed_task_id("schedule\n" + name).substr(4);
}

std::string schedule_lock(const std::string& name) {
  return "schedule:" + name;
}

bool is_exclusive(const wire::ScheduleSpec& s) {
  const auto& locks = s.task().locks();
  return std::find(locks.begin(), locks.end(), schedule_lock(s.name())) != locks.end();
}

std::string tick_key(const std::string& name, millis tick) {
  return "schedule/" + name + "/" + std::to_string(tick);
}

wire::TaskSpec tick_task(const wire::ScheduleSpec& s, millis tick) {
  auto spec = s.task();
  spec.set_key(tick_key(s.name(), tick));
  spec.set_id(keyed_task_id(spec.key()));
  spec.set_scheduled_by(s.name());
  spec.set_tick_ms(tick);
  return spec;
}

schedule_ticker::schedule_ticker(std::string self, millis stagger_ms, millis late_ms,
                                 millis hold_ms)
  : self_(std::move(self)), stagger_ms_(stagger_ms), late_ms_(late_ms),
    hold_ms_(hold_ms), live_{self_} {
}

void schedule_ticker::add(const wire::ScheduleSpec& s, millis now) {
  auto [it, fresh] = schedules_.try_emplace(s.name());
  it->second.spec = s;
  if (!fresh)
    return;
  it->second.held_since = now;
  // Ticks before the schedule existed never run. Of those missed while no
  // node ran it (older than late_ms): none, the latest one (last), or all
  // (the last 1,000 at most, or a month of cron ticks).
  const millis edge = now - late_ms_;
  const millis month = 31LL * 86'400'000;
  millis from = std::max(s.created_ms(), edge);
  if (s.catch_up() == 2) {
    from = std::max(s.created_ms(), s.every_ms() > 0 ? now - 1000 * s.every_ms()
                                                     : edge - month);
  } else if (s.catch_up() == 0) {
    std::optional<millis> latest;
    if (s.every_ms() > 0) {
      latest = edge / s.every_ms() * s.every_ms();
    } else {
      auto at = std::max(s.created_ms(), edge - month);
      for (int i = 0; i < 50'000; ++i) {
        auto n = next_tick(s, at);
        if (!n || *n > edge)
          break;
        latest = at = *n;
      }
    }
    if (latest && *latest > s.created_ms())
      from = *latest - 1;
  }
  it->second.last = from;
}

void schedule_ticker::remove(const std::string& name) {
  schedules_.erase(name);
}

void schedule_ticker::seen(const std::string& name, millis tick) {
  if (auto it = schedules_.find(name); it != schedules_.end())
    it->second.last = std::max(it->second.last, tick);
}

void schedule_ticker::members(std::vector<std::string> live) {
  if (std::find(live.begin(), live.end(), self_) == live.end())
    live.push_back(self_);
  live_ = std::move(live);
}

millis schedule_ticker::turn(const entry& e, millis tick) const {
  auto key = tick_key(e.spec.name(), tick);
  auto rank = rendezvous_rank(key, self_, live_);
  auto due = tick + tick_jitter(e.spec, tick);
  auto at = due + static_cast<millis>(rank) * stagger_ms_;
  // Due before this node held the schedule: its peers may have enqueued it
  // meanwhile, and a replica just restarted or catching up learns the
  // schedule's record before the ticks. Enqueued blind, each such tick
  // would be enqueued again, and might run again.
  if (due < e.held_since)
    at = std::max(at, e.held_since + hold_ms_);
  return at;
}

std::vector<schedule_ticker::due_tick> schedule_ticker::due(millis now) {
  std::vector<due_tick> out;
  for (auto& [name, e] : schedules_) {
    for (int i = 0; i < 1000; ++i) {
      auto t = next_tick(e.spec, e.last);
      if (!t || turn(e, *t) > now)
        break;
      // Missed (no node enqueued it in time): catch_up none passes over it.
      // A tick due before this node held the schedule is judged from when
      // it came to hold it, not from the end of the hold.
      auto due = *t + tick_jitter(e.spec, *t);
      bool missed = (due < e.held_since ? e.held_since : now) > due + late_ms_;
      if (!(missed && e.spec.catch_up() == 1))
        out.push_back({name, *t});
      e.last = *t;
    }
  }
  return out;
}

std::optional<millis> schedule_ticker::next_due() const {
  std::optional<millis> at;
  for (const auto& [name, e] : schedules_)
    if (auto t = next_tick(e.spec, e.last)) {
      auto when = turn(e, *t);
      at = at ? std::min(*at, when) : when;
    }
  return at;
}

} // namespace dice
