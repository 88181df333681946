#include "simulation/node_scenario.hpp"

#include <algorithm>
#include <numeric>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "simulation/actor_cluster.hpp"
#include "simulation/retention_watch.hpp"

namespace dice {

namespace {

constexpr const char* topic = "sim";
constexpr const char* lock = "sim-lock"; // sim_options::locks

struct published_event {
  std::string text;   // "origin#seq:data", as events_of lists it
  std::string origin;
  std::uint64_t seq = 0;
  millis at = 0;
};

// What the scenario did that the checks compare against.
struct record {
  std::set<std::string> accepted;
  std::set<std::string> locking; // the tasks that name the lock
  // Removed tasks, by the node whose remove was taken; a task whose remover
  // crashed afterwards may end either way (its REMOVE may be lost with it).
  std::map<std::string, std::string> removed;
  std::vector<published_event> events;
  std::map<std::string, millis> started; // each node's last (re)start
  std::map<std::string, millis> crashed; // each node's last crash
  // A retention short enough to pass is checked (sim_options::linger_ms):
  // an accepted task that ended may be gone.
  bool retention = false;
};

// What the final replicas held: tasks DONE and EXPIRED on one of them,
// and the specs they hold.
struct replica_tally {
  std::size_t done = 0;
  std::size_t expired = 0;
  std::map<std::string, wire::TaskSpec> specs;
};

// Every accepted task ended on every live replica (DONE; REMOVED if
// removed; EXPIRED allowed if it expires), the replicas identical.
replica_tally check_replicas(actor_cluster& c, const record& rec,
                             std::vector<std::string>& problems) {
  const auto& accepted = rec.accepted;
  // The phases a task may end in.
  auto allowed = [&](const task_row& row) {
    std::set<wire::TaskPhase> ok{wire::DONE};
    auto r = rec.removed.find(row.spec.id());
    if (r != rec.removed.end()) {
      // Its REMOVE may be lost with a remover that crashed.
      if (rec.crashed.count(r->second) == 0)
        ok.clear();
      ok.insert(wire::REMOVED);
    }
    if (row.spec.expires_ms() > 0)
      ok.insert(wire::EXPIRED);
    return ok;
  };
  replica_tally tally;
  std::optional<std::vector<task_row>> reference;
  std::string reference_id;
  for (const auto& id : c.live_nodes()) {
    auto rows = c.tasks_of(id);
    std::set<std::string> held;
    for (const auto& r : rows) {
      held.insert(r.spec.id());
      if (accepted.count(r.spec.id()) == 0)
        continue;
      auto ok = allowed(r);
      auto phase = r.state.phase();
      if (ok.count(phase) == 0) {
        std::string want;
        for (auto p : ok)
          want += (want.empty() ? "" : " or ") + wire::TaskPhase_Name(p);
        problems.push_back(id + ": " + r.spec.id() + " is "
                           + wire::TaskPhase_Name(phase) + ", not " + want);
      }
      if (!reference) {
        tally.done += phase == wire::DONE;
        tally.expired += phase == wire::EXPIRED;
        tally.specs[r.spec.id()] = r.spec;
      }
    }
    // A task that ended may be gone once its retention passed.
    for (const auto& t : accepted)
      if (held.count(t) == 0 && !(rec.retention && c.ended().count(t) > 0))
        problems.push_back(id + ": accepted task " + t + " is missing");
    if (!reference) {
      reference = std::move(rows);
      reference_id = id;
      continue;
    }
    bool same = rows.size() == reference->size();
    for (std::size_t i = 0; same && i < rows.size(); ++i)
      same = rows[i].spec.id() == (*reference)[i].spec.id()
             && rows[i].state.SerializeAsString()
                  == (*reference)[i].state.SerializeAsString();
    if (!same)
      problems.push_back(id + " and " + reference_id + " hold different replicas");
  }
  return tally;
}

// Every execution started, on its node's clock, no earlier than its task's
// not-before, its retry's backoff and before its expiry.
void check_policies(actor_cluster& c, const replica_tally& tally,
                    std::vector<std::string>& problems) {
  for (const auto& run : c.runs()) {
    auto s = tally.specs.find(run.task_id);
    if (s == tally.specs.end())
      continue;
    auto local = run.start + c.skew_of(run.node);
    if (local < s->second.not_before_ms())
      problems.push_back(run.task_id + " started on " + run.node + " at "
                         + std::to_string(local) + ", before its not-before "
                         + std::to_string(s->second.not_before_ms()));
    auto retry = c.ready_not_before(run.node, run.task_id, run.attempt);
    if (local < retry)
      problems.push_back(run.task_id + " a" + std::to_string(run.attempt)
                         + " started on " + run.node + " at "
                         + std::to_string(local) + ", before its retry's not-before "
                         + std::to_string(retry));
    if (s->second.expires_ms() > 0 && local >= s->second.expires_ms())
      problems.push_back(run.task_id + " started on " + run.node + " at "
                         + std::to_string(local) + ", after its expiry "
                         + std::to_string(s->second.expires_ms()));
  }
}

// One live coordinator, named by every live node.
void check_election(actor_cluster& c, std::vector<std::string>& problems) {
  std::set<std::string> named;
  for (const auto& id : c.live_nodes()) {
    auto who = c.coordinator_of(id);
    if (!who) {
      problems.push_back(id + " names no coordinator");
      return;
    }
    named.insert(*who);
  }
  if (named.size() > 1)
    problems.push_back("the live nodes name " + std::to_string(named.size())
                       + " coordinators");
  else if (!named.empty() && !c.is_up(*named.begin()))
    problems.push_back("the coordinator " + *named.begin() + " is down");
}

// Each event published by a node that did not crash since reaches every
// node up since before it was published; each node delivers an origin's
// events in the order it published them.
void check_events(actor_cluster& c, const record& rec,
                  std::vector<std::string>& problems) {
  for (const auto& id : c.live_nodes()) {
    auto got = c.events_of(id, topic);
    std::set<std::string> have(got.begin(), got.end());
    for (const auto& e : rec.events) {
      auto crash = rec.crashed.find(e.origin);
      bool origin_lived = crash == rec.crashed.end() || crash->second < e.at;
      if (origin_lived && rec.started.at(id) < e.at && have.count(e.text) == 0)
        problems.push_back(id + " did not deliver event " + e.text);
    }
    std::map<std::string, std::uint64_t> last;
    for (const auto& text : got) {
      auto hash = text.find('#');
      auto colon = text.find(':', hash);
      auto origin = text.substr(0, hash);
      auto seq = std::stoull(text.substr(hash + 1, colon - hash - 1));
      if (seq <= last[origin])
        problems.push_back(id + " delivered " + text + " after " + origin + "#"
                           + std::to_string(last[origin]));
      last[origin] = seq;
    }
  }
}

// No two executions of tasks naming the lock overlap in time. Checked in
// runs where no node was declared dead while it ran: the locks' failure
// detector is membership's death verdict, and a node wrongly declared dead
// (cut off by a partition or heavy loss) is their way to two holders
// (docs/coordination.md).
void check_lock(actor_cluster& c, const record& rec,
                std::vector<std::string>& problems) {
  std::vector<sim_run> held;
  for (const auto& r : c.runs())
    if (rec.locking.count(r.task_id) > 0)
      held.push_back(r);
  std::sort(held.begin(), held.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < held.size(); ++i) {
    const auto& a = held[i - 1];
    const auto& b = held[i];
    if (a.end < 0 || a.end > b.start)
      problems.push_back(a.task_id + " on " + a.node + " and " + b.task_id + " on "
                         + b.node + " ran at once under " + lock + " (at "
                         + std::to_string(b.start) + ")");
  }
}

// Tasks finished so far, each credited once, to the node whose execution
// of it succeeded first; per node, in the order of `ids`.
std::vector<std::uint64_t> tasks_done_by(const std::vector<sim_run>& runs,
                                         const std::vector<std::string>& ids) {
  std::map<std::string, const sim_run*> first;
  for (const auto& r : runs)
    if (r.ok) {
      auto& f = first[r.task_id];
      if (f == nullptr || r.end < f->end)
        f = &r;
    }
  std::vector<std::uint64_t> out(ids.size(), 0);
  for (const auto& [task, r] : first) {
    auto at = std::find(ids.begin(), ids.end(), r->node);
    if (at != ids.end())
      ++out[static_cast<std::size_t>(at - ids.begin())];
  }
  return out;
}

// Executions beyond one per task started so far.
std::uint64_t duplicate_runs(const std::vector<sim_run>& runs) {
  std::set<std::string> tasks;
  for (const auto& r : runs)
    tasks.insert(r.task_id);
  return runs.size() - tasks.size();
}

std::vector<std::string> check(actor_cluster& c, const record& rec,
                               replica_tally* out) {
  std::vector<std::string> problems;
  auto tally = check_replicas(c, rec, problems);
  if (problems.empty())
    check_policies(c, tally, problems);
  if (problems.empty())
    check_election(c, problems);
  if (problems.empty())
    check_events(c, rec, problems);
  if (problems.empty() && c.wrong_death_verdicts() == 0)
    check_lock(c, rec, problems);
  *out = problems.empty() ? std::move(tally) : replica_tally{};
  return problems;
}

// Every live replica, task by task, for diagnosis (dice-sim --dump).
std::string replicas_of(actor_cluster& c) {
  std::ostringstream out;
  for (const auto& id : c.live_nodes()) {
    out << id << ":\n";
    for (const auto& row : c.tasks_of(id)) {
      const auto& st = row.state;
      out << "  " << row.spec.id() << " "
          << wire::TaskPhase_Name(st.phase()) << " a" << st.attempt();
      if (!st.claim().node_id().empty())
        out << " by " << st.claim().node_id();
      if (!row.has_spec)
        out << " (id only)";
      out << "\n";
    }
  }
  return out.str();
}

} // namespace

sim_report run_node_scenario(const sim_options& o) {
  if (o.nodes < 1 || o.nodes > 60000)
    throw std::invalid_argument("--nodes must be between 1 and 60000");
  spdlog::set_level(spdlog::level::warn);
  sim_report r;
  r.seed = o.seed;
  r.tasks = o.tasks;
  actor_cluster_options co;
  co.seed = o.seed;
  co.faults = o.faults;
  co.queue = o.queue;
  co.journal = o.journal;
  co.clock_skew_ms = o.clock_skew_ms;
  co.fail_probability = o.fail_probability;
  co.super_peers = o.super_peers;
  co.multicast = o.multicast;
  co.event_resenders = o.event_resenders;
  actor_cluster c(co);
  record rec;
  std::mt19937_64 rng(o.seed);
  std::vector<std::string> ids;
  for (std::size_t i = 1; i <= o.nodes; ++i) {
    ids.push_back("n" + std::to_string(i));
    c.start(ids.back());
    rec.started[ids.back()] = c.now();
  }
  const millis step = 10;
  const millis start = c.now();
  auto elapsed = [&] { return c.now() - start; };
  // The timeline: claims lost by a node before its crash, and when the
  // next sample is due.
  std::uint64_t claims_lost_before_crashes = 0;
  millis next_sample = 0;
  r.timeline.nodes = ids;
  auto sample = [&] {
    timeline_sample s;
    s.at = elapsed();
    s.done_by = tasks_done_by(c.runs(), ids);
    s.duplicates = duplicate_runs(c.runs());
    s.claims_lost = claims_lost_before_crashes;
    for (const auto& id : c.live_nodes())
      s.claims_lost += c.counters_of(id).claims_lost;
    s.up = c.live_nodes().size();
    r.timeline.samples.push_back(std::move(s));
  };
  // Virtual time moves on, a step at a time, sampled as it goes.
  retention_watch watch;
  rec.retention = o.linger_ms > 0;
  auto advance = [&](millis ms) {
    for (millis left = ms; left > 0; left -= step) {
      c.step(std::min(left, step));
      if (rec.retention && elapsed() % 100 == 0)
        for (const auto& id : c.live_nodes())
          watch.listed(id, c.now(), c.tasks_of(id));
      if (o.timeline_every_ms > 0 && elapsed() >= next_sample) {
        sample();
        next_sample = elapsed() + o.timeline_every_ms;
      }
    }
  };
  advance(o.submit_at_ms);
  // Submissions spread over the nodes, an event published with every
  // other one; crashes of other nodes meanwhile.
  std::vector<std::pair<millis, std::string>> restarts;
  millis last_restart = -o.settle_ms;
  millis first_submit = elapsed();
  std::size_t crashes_left = std::min(o.crashes, o.nodes > 1 ? o.nodes - 1 : 0);
  if (o.partition && o.nodes > 1) {
    std::vector<std::string> a(ids.begin(), ids.begin() + ids.size() / 2);
    std::vector<std::string> b(ids.begin() + ids.size() / 2, ids.end());
    c.partition({a, b});
  }
  // Drawn only when asked for, so the runs of other options keep their
  // seeds.
  auto share = [&](double p) {
    return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p;
  };
  auto upto = [&](millis most) {
    return static_cast<millis>(rng() % static_cast<std::uint64_t>(most + 1));
  };
  const millis gap =
    o.tasks == 0 ? 0 : o.submit_spread_ms / static_cast<millis>(o.tasks);
  millis next_step = elapsed() + step;
  for (std::size_t t = 0; t < o.tasks; ++t) {
    auto at = ids[t % ids.size()];
    if (!c.is_up(at))
      at = c.live_nodes().front();
    wire::TaskSpec spec;
    spec.set_kind("sleep");
    spec.set_payload(std::to_string(o.task_ms));
    if (t < o.removes)
      spec.set_id("removable-" + std::to_string(t)); // removed mid-way
    // Times a user gives are read on the submitting node's clock.
    auto clock = c.now() + c.skew_of(at);
    if (share(o.delayed))
      spec.set_not_before_ms(clock + upto(o.delay_max_ms));
    if (share(o.expiring))
      spec.set_expires_ms(clock + 1 + upto(o.expire_max_ms));
    if (o.locks && t % 3 == 1) {
      spec.set_id("locked-" + std::to_string(t)); // known before acknowledged
      spec.add_locks(lock);
      rec.locking.insert(spec.id());
    }
    c.submit(at, spec, 0);
    if (t % 2 == 0) {
      auto data = std::to_string(t);
      auto seq = c.publish(at, topic, data);
      rec.events.push_back({at + "#" + std::to_string(seq) + ":" + data, at,
                            seq, c.now()});
    }
    // Half-way, the first tasks are removed, one per submit, each at the
    // node that submits then.
    if (auto k = t - o.tasks / 2; t >= o.tasks / 2 && k < o.removes) {
      auto task = "removable-" + std::to_string(k);
      if (c.remove(at, task))
        rec.removed[task] = at;
    }
    // Time moves on while submissions spread (in whole steps).
    while (first_submit + static_cast<millis>(t) * gap >= next_step) {
      advance(step);
      next_step += step;
    }
    if (crashes_left > 0 && rng() % (o.tasks / (o.crashes + 1) + 1) == 0) {
      auto victim = ids[1 + rng() % (ids.size() - 1)];
      // One node down at a time, and not while the last one catches up:
      // a crash drawn then is skipped.
      bool all_up = c.live_nodes().size() == ids.size();
      if (all_up && elapsed() - last_restart >= o.settle_ms) {
        claims_lost_before_crashes += c.counters_of(victim).claims_lost;
        c.crash(victim);
        rec.crashed[victim] = c.now();
        restarts.emplace_back(elapsed() + o.down_ms, victim);
        --crashes_left;
        ++r.crashes;
      }
    }
  }
  bool healed = !o.partition;
  bool calm = false; // faults over
  for (millis limit = o.max_time_ms; elapsed() < limit;) {
    advance(step);
    for (auto& [when, who] : restarts)
      if (!who.empty() && elapsed() >= when) {
        c.restart(who);
        watch.restarted(who, o.journal);
        rec.started[who] = c.now();
        last_restart = elapsed();
        who.clear();
      }
    if (!healed && elapsed() >= o.submit_at_ms + o.partition_ms) {
      c.heal();
      healed = true;
    }
    if (!calm && elapsed() >= o.faults_until_ms) {
      c.set_faults({0, 0, o.faults.min_delay, o.faults.max_delay});
      calm = true;
    }
    if (elapsed() % 100 != 0 || !healed)
      continue;
    bool restarted = std::all_of(restarts.begin(), restarts.end(),
                                 [](const auto& p) { return p.second.empty(); });
    rec.accepted = c.acknowledged();
    replica_tally tally;
    // Every submission answered first: an accepted task must not escape
    // the check by being acknowledged after it.
    if (restarted && c.unanswered() == 0 && check(c, rec, &tally).empty()) {
      r.converged = true;
      r.converged_at_ms = elapsed();
      r.done = tally.done;
      r.expired = tally.expired;
      break;
    }
  }
  r.makespan_ms = elapsed() - first_submit;
  // Retention passes: every replica must forget every ended task alike,
  // and none may come back or run again. What it changed must settle as
  // anything else does (an election, say, still running after a partition
  // healed).
  if (r.converged && o.linger_ms > 0) {
    advance(o.linger_ms);
    replica_tally tally;
    while (!(r.violations = check(c, rec, &tally)).empty()
           && elapsed() < o.max_time_ms)
      advance(100);
    auto more = watch.violations(c.runs());
    r.violations.insert(r.violations.end(), more.begin(), more.end());
    r.converged = r.violations.empty();
    // Accepted tasks the first live replica holds, and those each forgot.
    auto live = c.live_nodes();
    for (std::size_t i = 0; i < live.size(); ++i) {
      std::set<std::string> held;
      for (const auto& row : c.tasks_of(live[i]))
        held.insert(row.spec.id());
      for (const auto& t : rec.accepted) {
        bool here = held.count(t) > 0;
        r.forgotten += here ? 0 : 1;
        r.held += i == 0 && here ? 1 : 0;
      }
    }
  }
  if (o.timeline_every_ms > 0)
    sample(); // the end, whatever the sampling period
  rec.accepted = c.acknowledged();
  r.accepted = rec.accepted.size();
  r.removed = rec.removed.size();
  if (!r.converged && r.violations.empty()) {
    replica_tally tally;
    r.violations = check(c, rec, &tally);
  }
  if (!r.converged)
    r.details = replicas_of(c);
  for (const auto& [task, n] : c.executions()) {
    r.executions += static_cast<std::size_t>(n);
    r.duplicates += static_cast<std::size_t>(n - 1);
  }
  auto per_task = [&](double x) {
    return o.tasks == 0 ? 0.0 : x / static_cast<double>(o.tasks);
  };
  r.wrong_death_verdicts = c.wrong_death_verdicts();
  r.wrong_death_times_ms = c.wrong_death_times();
  for (const auto& id : c.live_nodes())
    r.add(c.counters_of(id));
  r.take_traffic(c.traffic());
  r.messages_per_task = per_task(static_cast<double>(r.queue_messages));
  r.heartbeats_per_task = per_task(static_cast<double>(r.running_heartbeats));
  r.bytes_per_task = per_task(static_cast<double>(r.queue_bytes));
  // Per node, every node (a silent one at 0): the mean, the busiest and
  // the median, per task.
  struct spread {
    double mean = 0, most = 0, median = 0;
  };
  auto over_nodes = [&](const std::map<std::string, std::uint64_t>& of) {
    std::vector<std::uint64_t> v;
    for (const auto& id : ids) {
      auto it = of.find(id);
      v.push_back(it == of.end() ? 0 : it->second);
    }
    spread out;
    if (v.empty())
      return out;
    std::sort(v.begin(), v.end());
    auto all = std::accumulate(v.begin(), v.end(), std::uint64_t{0});
    out.mean = per_task(static_cast<double>(all) / static_cast<double>(v.size()));
    out.most = per_task(static_cast<double>(v.back()));
    out.median = per_task(static_cast<double>(v[v.size() / 2]));
    return out;
  };
  auto queue = over_nodes(r.queue_datagrams_by_node);
  r.node_datagrams_per_task = queue.mean;
  r.busiest_node_datagrams_per_task = queue.most;
  r.median_node_datagrams_per_task = queue.median;
  // What every node spent on traffic in all.
  auto sent = over_nodes(r.sent_by_node);
  r.node_sent_per_task = sent.mean;
  r.busiest_node_sent_per_task = sent.most;
  auto received = over_nodes(r.received_by_node);
  r.node_received_per_task = received.mean;
  r.busiest_node_received_per_task = received.most;
  return r;
}

} // namespace dice
