// Task dependencies (`after`, known_tasks/parents.hpp) end to end on
// production nodes (actor_cluster). Seeded workflows — chains, fan-out and
// fan-in (up to 20 parents of one child), parents that fail, are canceled,
// removed or expire, children that run anyway (run_after_failure), and
// children submitted long before their parents — run under loss,
// duplication, reordering, a partition that heals, a node cut off for 2 s
// (what its peers see of a paused process), skewed clocks, journals, and
// crashes of the submitter and of a parent's runner (restarting, or down
// for good). Every run must end with:
// - no child ordered to run before each of its parents had ended DONE (or,
//   running anyway, ended) in the replica of the node that ran it, with
//   exactly those ends as its inputs: watched on every node's trace, at the
//   moment its running_tasks orders the execution (dependency_watch);
// - every task terminal on every live replica, the replicas identical;
// - each task ended as its workflow says: children of done parents DONE,
//   their executions given their parents' results (the simulated executor
//   echoes the parents' ends into the child's result), children of a parent
//   that ended otherwise CANCELED with "parent X <how>", never run;
// - every execution of a child started after an execution of each parent
//   ended successfully.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "known_tasks/state_names.hpp"
#include "known_tasks/task_state.hpp"
#include "node_cases.hpp"
#include "queue/queue_trace.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;
using namespace dice::test;

namespace {

// -- the watch on executions ---------------------------------------------------

/// Every node's replica as its known_tasks tells it (the task_changed
/// events the trace sees on their way to the node's facade, in the order
/// emitted), and every execution order of a task with parents checked
/// against it at the moment running_tasks gives it: each parent ended
/// there (DONE, or any end for a child that runs anyway), and the order
/// carries exactly those ends, in `after` order.
class dependency_watch {
public:
  /// Sees node `node`'s queue (actor_cluster_options::trace).
  void see(const std::string& node, const trace_point& p) {
    if (p.event == nullptr)
      return;
    if (p.at == station::world) {
      if (const auto* c = std::get_if<ev::task_changed>(p.event))
        replicas_[node][c->task_id] = c->state;
    } else if (p.at == station::executor) {
      if (const auto* o = std::get_if<ev::run_order>(p.event))
        check(node, *o);
    }
  }
  /// Node `node`'s process died: what it held goes with it.
  void crashed(const std::string& node) { replicas_.erase(node); }

  const std::vector<std::string>& violations() const { return violations_; }
  /// Execution orders of tasks with parents, checked.
  std::size_t orders_checked() const { return checked_; }

private:
  void check(const std::string& node, const ev::run_order& o) {
    if (!o.spec || o.spec->after_size() == 0)
      return;
    ++checked_;
    const auto& spec = *o.spec;
    const auto& held = replicas_[node];
    auto where = o.task_id + " a" + std::to_string(o.attempt) + " ordered on "
                 + node;
    if (spec.inputs_size() != spec.after_size())
      violations_.push_back(where + " with " + std::to_string(spec.inputs_size())
                            + " inputs for "
                            + std::to_string(spec.after_size()) + " parents");
    for (int i = 0; i < spec.after_size(); ++i) {
      const auto& parent = spec.after(i);
      auto h = held.find(parent);
      if (h == held.end()) {
        violations_.push_back(where + " while its replica did not know parent "
                              + parent);
        continue;
      }
      auto phase = h->second.phase();
      bool may = phase == wire::DONE
                 || (spec.run_after_failure() && is_terminal(phase));
      if (!may)
        violations_.push_back(where + " while parent " + parent + " was "
                              + phase_name(phase) + " there");
      if (i >= spec.inputs_size())
        continue;
      const auto& in = spec.inputs(i);
      const auto& text = phase == wire::DONE ? h->second.result()
                                             : h->second.reason();
      const auto& given = in.phase() == wire::DONE ? in.result() : in.reason();
      if (in.task_id() != parent || in.phase() != phase || given != text)
        violations_.push_back(where + ": input " + std::to_string(i) + " is "
                              + in.task_id() + "=" + phase_name(in.phase())
                              + " '" + given + "', its replica holds " + parent
                              + "=" + phase_name(phase) + " '" + text + "'");
    }
  }

  std::map<std::string, std::map<std::string, wire::TaskState>> replicas_;
  std::vector<std::string> violations_;
  std::size_t checked_ = 0;
};

// -- workflows -------------------------------------------------------------------

/// One task of a workflow, as the scenario submits it.
struct planned_task {
  wire::TaskSpec spec;
  std::string at;   // the node it is submitted to
  millis when = 0;  // after the first submission
  /// How it ends by itself: DONE; FAILED (every attempt fails); CANCELED
  /// or REMOVED (a user does so at `end_at`); EXPIRED (it expires before
  /// it may start).
  wire::TaskPhase own_end = wire::DONE;
  millis end_at = 0;
};

struct plan {
  std::vector<planned_task> tasks;
  std::map<std::string, std::size_t> index;

  planned_task& add(const std::string& id, millis ms,
                    std::vector<std::string> after = {},
                    bool run_after_failure = false) {
    planned_task t;
    t.spec = sleep_task(ms);
    t.spec.set_id(id);
    t.spec.mutable_after()->Assign(after.begin(), after.end());
    t.spec.set_run_after_failure(run_after_failure);
    index[id] = tasks.size();
    tasks.push_back(std::move(t));
    return tasks.back();
  }
  const planned_task& of(const std::string& id) const {
    return tasks.at(index.at(id));
  }

  /// The phase `id` must end in: its own end, else CANCELED if a parent
  /// ends otherwise than DONE (unless it runs anyway), else DONE.
  wire::TaskPhase expected(const std::string& id) const {
    const auto& t = of(id);
    if (t.own_end != wire::DONE)
      return t.own_end;
    if (!t.spec.run_after_failure())
      for (const auto& p : t.spec.after())
        if (expected(p) != wire::DONE)
          return wire::CANCELED;
    return wire::DONE;
  }
  /// The reasons a child canceled for its parents may give: "parent X
  /// <how>" for each parent X that ends otherwise than DONE (whichever
  /// its owner heard of first).
  std::set<std::string> cancel_reasons(const std::string& id) const {
    std::set<std::string> out;
    for (const auto& p : of(id).spec.after())
      if (auto e = expected(p); e != wire::DONE)
        out.insert("parent " + p + " " + phase_name(e));
    return out;
  }
  /// The result a DONE task's execution gives (sim_executor.hpp).
  std::string result(const std::string& id) const {
    const auto& spec = of(id).spec;
    std::string r = "slept " + spec.payload() + " ms";
    for (int i = 0; i < spec.after_size(); ++i)
      r += (i == 0 ? " after " : ",") + spec.after(i) + "="
           + phase_name(expected(spec.after(i)));
    return r;
  }
  bool is_parent(const std::string& id) const {
    for (const auto& t : tasks)
      for (const auto& p : t.spec.after())
        if (p == id)
          return true;
    return false;
  }
};

/// The seeded world a plan runs in.
struct workflow_options {
  std::uint64_t seed = 1;
  std::size_t nodes = 4;
  link_faults faults;
  /// Faults stop here (from the first submission); then only delays.
  millis faults_until_ms = 6000;
  millis clock_skew_ms = 0;
  /// Each node keeps a journal and restores its replica at restart.
  bool journal = false;
  queue_config queue;
  /// The first half of the nodes cut off from the rest from the first
  /// submission for partition_ms.
  bool partition = false;
  millis partition_ms = 1500;
  /// One node (not n1) cut off from every other for this long, from
  /// isolate_at_ms: what its peers see of a process paused by its host.
  millis isolate_ms = 0;
  millis isolate_at_ms = 0;
  /// The node that submitted `crash_submitter_of` crashes once its tasks are
  /// acknowledged, at crash_submitter_at_ms or later.
  std::string crash_submitter_of;
  millis crash_submitter_at_ms = 0;
  /// From crash_runner_at_ms, the first node (not n1) found running a task
  /// that has children crashes.
  bool crash_runner = false;
  millis crash_runner_at_ms = 0;
  /// A crashed node restarts (new incarnation, empty replica) after this
  /// long; < 0: it stays down.
  millis down_ms = 3000;
  millis max_time_ms = 60'000;
};

struct workflow_report {
  std::vector<std::string> problems;
  std::size_t tasks = 0, done = 0, canceled_for_parents = 0, ran_anyway = 0;
  std::size_t early_children = 0; // submitted before one of their parents
  std::size_t orders_checked = 0, executions = 0, crashes = 0;
  millis converged_at = -1;

  std::string summary() const {
    std::ostringstream out;
    out << "tasks=" << tasks << " done=" << done
        << " canceled_for_parents=" << canceled_for_parents
        << " ran_anyway=" << ran_anyway << " early_children=" << early_children
        << " orders_checked=" << orders_checked << " executions=" << executions
        << " crashes=" << crashes << " settled_at_ms=" << converged_at;
    for (const auto& p : problems)
      out << "\n  " << p;
    return out.str();
  }
};

// Every task of the plan terminal on every live replica, the replicas
// identical.
bool settled(actor_cluster& c, const plan& p) {
  auto live = c.live_nodes();
  std::optional<std::vector<task_row>> reference;
  for (const auto& id : live) {
    auto rows = c.tasks_of(id);
    std::size_t ended = 0;
    for (const auto& r : rows)
      if (p.index.count(r.spec.id()) > 0 && is_terminal(r.state.phase()))
        ++ended;
    if (ended != p.tasks.size())
      return false;
    if (!reference)
      reference = std::move(rows);
    else if (!difference(*reference, rows).empty())
      return false;
  }
  return true;
}

// What the replicas and the executions must show once the run settled
// (or gave up).
void check_outcome(actor_cluster& c, const plan& p, workflow_report& r) {
  auto& problems = r.problems;
  auto live = c.live_nodes();
  if (live.empty()) {
    problems.push_back("no live node");
    return;
  }
  std::map<std::string, task_row> final; // the first live replica's
  std::vector<task_row> reference;
  for (const auto& id : live) {
    auto rows = c.tasks_of(id);
    std::map<std::string, task_row> held;
    for (auto& row : rows)
      held[row.spec.id()] = row;
    for (const auto& t : p.tasks) {
      const auto& task = t.spec.id();
      auto h = held.find(task);
      if (h == held.end()) {
        problems.push_back(id + ": " + task + " is missing");
        continue;
      }
      const auto& st = h->second.state;
      auto want = p.expected(task);
      if (st.phase() != want) {
        problems.push_back(id + ": " + task + " is " + phase_name(st.phase())
                           + " (" + st.reason() + "), not " + phase_name(want));
        continue;
      }
      if (want == wire::DONE && st.result() != p.result(task))
        problems.push_back(id + ": " + task + " gave '" + st.result()
                           + "', not '" + p.result(task) + "'");
      if (want == wire::CANCELED && t.own_end == wire::DONE
          && p.cancel_reasons(task).count(st.reason()) == 0)
        problems.push_back(id + ": " + task + " was canceled for '"
                           + st.reason() + "'");
      // What GET /tasks/ID shows of its parents: each one's end.
      if (h->second.has_spec
          && h->second.spec.inputs_size() != t.spec.after_size())
        problems.push_back(id + ": " + task + " shows "
                           + std::to_string(h->second.spec.inputs_size())
                           + " inputs for " + std::to_string(t.spec.after_size())
                           + " parents");
    }
    if (id == live.front()) {
      final = std::move(held);
      reference = std::move(rows);
    } else if (auto d = difference(reference, rows); !d.empty()) {
      problems.push_back(id + " and " + live.front() + " differ: " + d);
    }
  }
  if (!problems.empty())
    return;
  // The executions: what each one of a child was given, and when it began.
  std::map<std::string, std::vector<const sim_run*>> runs;
  for (const auto& run : c.runs())
    runs[run.task_id].push_back(&run);
  for (const auto& t : p.tasks) {
    const auto& task = t.spec.id();
    auto want = p.expected(task);
    r.done += want == wire::DONE ? 1 : 0;
    if (t.spec.after_size() == 0)
      continue;
    if (want == wire::CANCELED && t.own_end == wire::DONE) {
      ++r.canceled_for_parents;
      if (runs.count(task) > 0)
        problems.push_back(task + " ran although a parent ended it");
      continue;
    }
    if (want != wire::DONE)
      continue;
    bool anyway = false;
    for (const auto& parent : t.spec.after())
      anyway |= p.expected(parent) != wire::DONE;
    r.ran_anyway += anyway ? 1 : 0;
    if (runs.count(task) == 0)
      problems.push_back(task + " is DONE but never ran");
    for (const auto* run : runs[task]) {
      auto where = task + " a" + std::to_string(run->attempt) + " on " + run->node
                   + " at " + std::to_string(run->start);
      if (run->parents.size() != static_cast<std::size_t>(t.spec.after_size())) {
        problems.push_back(where + " was given "
                           + std::to_string(run->parents.size()) + " parents");
        continue;
      }
      for (int i = 0; i < t.spec.after_size(); ++i) {
        const auto& parent = t.spec.after(i);
        const auto& given = run->parents[static_cast<std::size_t>(i)];
        const auto& end = final.at(parent).state;
        if (given.task_id != parent || given.state != phase_name(end.phase())
            || (end.phase() == wire::DONE && given.result_or_reason != end.result()))
          problems.push_back(where + " was given " + given.task_id + "="
                             + given.state + " '" + given.result_or_reason
                             + "' for " + parent + "=" + phase_name(end.phase())
                             + " '" + end.result() + "'");
        if (end.phase() != wire::DONE)
          continue;
        // Some execution of the parent had succeeded before it began.
        bool before = false;
        for (const auto* pr : runs[parent])
          before |= pr->ok && pr->end >= 0 && pr->end <= run->start;
        if (!before)
          problems.push_back(where + " began before any execution of parent "
                             + parent + " had succeeded");
      }
    }
  }
}

// Every live replica's tasks that have not ended, with their owners, and
// what each node adopted and canceled for parents, for diagnosis.
std::string unended(actor_cluster& c, const plan& p) {
  std::ostringstream out;
  for (const auto& id : c.live_nodes()) {
    auto k = c.counters_of(id);
    out << "\n    " << id << " (coordinator " << c.coordinator_of(id).value_or("none")
        << ", adopted " << k.adopted << ", parent_cancels " << k.parent_cancels
        << "):";
    for (const auto& row : c.tasks_of(id))
      if (p.index.count(row.spec.id()) > 0 && !is_terminal(row.state.phase()))
        out << " " << row.spec.id() << "=" << phase_name(row.state.phase())
            << (row.has_spec ? "" : " (id only)") << " owner " << row.owner;
  }
  return out.str();
}

workflow_report run_workflows(const workflow_options& o, const plan& p) {
  workflow_report r;
  r.tasks = p.tasks.size();
  dependency_watch watch;
  actor_cluster_options co;
  co.seed = o.seed;
  co.faults = o.faults;
  co.queue = o.queue;
  co.clock_skew_ms = o.clock_skew_ms;
  co.journal = o.journal;
  co.trace = [&watch](const std::string& node, const trace_point& tp) {
    watch.see(node, tp);
  };
  actor_cluster c(co);
  std::vector<std::string> ids;
  for (std::size_t i = 1; i <= o.nodes; ++i)
    ids.push_back("n" + std::to_string(i));
  for (const auto& id : ids)
    c.start(id);
  c.step(1500);
  // Which executions fail: every one of a task planned to fail.
  std::set<std::string> failing;
  for (const auto& t : p.tasks)
    if (t.own_end == wire::FAILED)
      failing.insert(t.spec.id());
  c.fail_executions([failing](const std::string& task, std::uint32_t) {
    return failing.count(task) > 0;
  });
  // Submitted before one of its parents: the child waits for it.
  std::map<std::string, millis> submitted_at;
  for (const auto& t : p.tasks)
    submitted_at[t.spec.id()] = t.when;
  for (const auto& t : p.tasks)
    for (const auto& parent : t.spec.after())
      if (submitted_at.at(parent) > t.when) {
        ++r.early_children;
        break;
      }

  const millis start = c.now();
  auto elapsed = [&] { return c.now() - start; };
  std::vector<bool> submitted(p.tasks.size(), false), ended(p.tasks.size(), false);
  std::map<std::string, millis> restart_at; // crashed node -> when it returns
  bool partitioned = false, healed = !o.partition;
  bool isolated = false, rejoined = o.isolate_ms == 0;
  std::string isolated_node = ids.size() > 2 ? ids.back() : "";
  bool calm = false;
  bool submitter_crashed = o.crash_submitter_of.empty();
  bool runner_crashed = !o.crash_runner;
  auto crash = [&](const std::string& id) {
    c.crash(id);
    watch.crashed(id);
    ++r.crashes;
    if (o.down_ms >= 0)
      restart_at[id] = elapsed() + o.down_ms;
  };
  auto first_up = [&](const std::string& preferred) {
    return c.is_up(preferred) ? preferred : c.live_nodes().front();
  };
  // Where each task was submitted. A node crashes only once every task
  // submitted to it is acknowledged and held by another live replica: one
  // it had not acknowledged would be refused, and one acknowledged while
  // it was cut off alone ("held by another replica, or none is alive")
  // would die with it; either way its children would wait for it forever,
  // as they must.
  std::map<std::string, std::string> submitted_to;
  auto may_crash = [&](const std::string& node) {
    std::set<std::string> mine;
    for (const auto& [task, at] : submitted_to)
      if (at == node) {
        if (c.acknowledged().count(task) == 0)
          return false;
        mine.insert(task);
      }
    for (const auto& other : c.live_nodes())
      if (other != node && !mine.empty())
        for (const auto& row : c.tasks_of(other))
          if (row.has_spec)
            mine.erase(row.spec.id());
    return mine.empty();
  };
  for (;;) {
    bool all_submitted = true;
    for (std::size_t i = 0; i < p.tasks.size(); ++i) {
      const auto& t = p.tasks[i];
      if (!submitted[i] && elapsed() >= t.when) {
        auto at = first_up(t.at);
        auto spec = t.spec;
        if (t.own_end == wire::EXPIRED) {
          // It may start only after its expiry, on the submitter's clock.
          auto clock = c.now() + c.skew_of(at);
          spec.set_expires_ms(clock + 300);
          spec.set_not_before_ms(clock + 1300);
        }
        c.submit(at, spec, 0);
        submitted_to[spec.id()] = at;
        submitted[i] = true;
      }
      all_submitted &= submitted[i];
      // A user cancels or removes it, at n1, which never crashes (a node
      // that crashed might take the operation with it), once n1 knows it.
      if (submitted[i] && !ended[i] && elapsed() >= t.end_at
          && (t.own_end == wire::CANCELED || t.own_end == wire::REMOVED)) {
        ended[i] = t.own_end == wire::CANCELED ? c.cancel("n1", t.spec.id())
                                               : c.remove("n1", t.spec.id());
      }
    }
    if (o.partition && !partitioned) {
      std::vector<std::string> a(ids.begin(), ids.begin() + ids.size() / 2);
      std::vector<std::string> b(ids.begin() + ids.size() / 2, ids.end());
      c.partition({a, b});
      partitioned = true;
    }
    if (!healed && elapsed() >= o.partition_ms) {
      c.heal();
      healed = true;
    }
    if (healed && !isolated && !isolated_node.empty() && o.isolate_ms > 0
        && elapsed() >= o.isolate_at_ms) {
      std::vector<std::string> rest(ids.begin(), ids.end() - 1);
      c.partition({{isolated_node}, rest});
      isolated = true;
    }
    if (isolated && !rejoined && elapsed() >= o.isolate_at_ms + o.isolate_ms) {
      c.heal();
      rejoined = true;
    }
    if (!calm && elapsed() >= o.faults_until_ms) {
      c.set_faults({0, 0, o.faults.min_delay, o.faults.max_delay});
      calm = true;
    }
    // The submitter of a task dies once its submissions are acknowledged.
    if (!submitter_crashed && elapsed() >= o.crash_submitter_at_ms
        && elapsed() % 100 == 0) {
      const auto& victim = p.of(o.crash_submitter_of).at;
      bool all = true;
      for (std::size_t i = 0; i < p.tasks.size(); ++i)
        all &= p.tasks[i].at != victim || submitted[i];
      if (!c.is_up(victim)) {
        submitter_crashed = true; // down already (a runner's crash)
      } else if (all && may_crash(victim)) {
        crash(victim);
        submitter_crashed = true;
      }
    }
    // A node dies while it runs a parent.
    if (!runner_crashed && elapsed() >= o.crash_runner_at_ms
        && c.live_nodes().size() == ids.size()) {
      for (const auto& run : c.runs())
        if (run.end < 0 && run.node != "n1" && p.index.count(run.task_id) > 0
            && p.is_parent(run.task_id) && may_crash(run.node)) {
          crash(run.node);
          runner_crashed = true;
          break;
        }
    }
    for (auto it = restart_at.begin(); it != restart_at.end();)
      if (elapsed() >= it->second) {
        c.restart(it->first);
        it = restart_at.erase(it);
      } else {
        ++it;
      }
    bool quiet = all_submitted && healed && rejoined && submitter_crashed
                 && restart_at.empty() && c.unanswered() == 0;
    if (quiet && elapsed() % 100 == 0 && settled(c, p)) {
      r.converged_at = elapsed();
      break;
    }
    if (elapsed() >= o.max_time_ms) {
      r.problems.push_back("not settled after " + std::to_string(o.max_time_ms)
                           + " ms; not ended: " + unended(c, p));
      break;
    }
    c.step(10);
  }
  for (const auto& t : p.tasks)
    if (c.acknowledged().count(t.spec.id()) == 0)
      r.problems.push_back(t.spec.id() + " was never acknowledged");
  r.problems.insert(r.problems.end(), watch.violations().begin(),
                    watch.violations().end());
  check_outcome(c, p, r);
  r.orders_checked = watch.orders_checked();
  r.executions = c.runs().size();
  return r;
}

// -- the seeded scenario -----------------------------------------------------------

/// Seed `seed`'s workflows on `nodes` nodes, submitted in a shuffled order
/// over 2 s (children often before their parents):
/// - a chain of 3 to 6 tasks;
/// - fan-out and fan-in: a root, 3 to 8 children (20 in one seed in four),
///   one task after all of them and one after that;
/// - a parent that ends badly (fails every attempt, or is canceled,
///   removed, or expires, by seed), a child of it and of a done task, a
///   grandchild, and a child that runs anyway;
/// - a child submitted 0.5 to 2 s before its only parent.
plan workflows(std::uint64_t seed, const std::vector<std::string>& nodes,
               std::mt19937_64& rng) {
  plan p;
  auto pick = [&] { return nodes[rng() % nodes.size()]; };
  auto ms = [&] { return std::to_string(20 + rng() % 180); };
  auto w = "s" + std::to_string(seed) + "-";
  // A chain.
  auto chain = 3 + seed % 4;
  for (std::size_t i = 0; i < chain; ++i) {
    std::vector<std::string> after;
    if (i > 0)
      after.push_back(w + "chain" + std::to_string(i - 1));
    p.add(w + "chain" + std::to_string(i), 0, after).spec.set_payload(ms());
  }
  // Fan-out, then fan-in.
  auto fan = seed % 4 == 0 ? 20 : 3 + seed % 6;
  p.add(w + "root", 0).spec.set_payload(ms());
  std::vector<std::string> mids;
  for (std::size_t i = 0; i < fan; ++i) {
    mids.push_back(w + "mid" + std::to_string(i));
    p.add(mids.back(), 0, {w + "root"}).spec.set_payload(ms());
  }
  p.add(w + "join", 0, mids).spec.set_payload(ms());
  p.add(w + "tail", 0, {w + "join"}).spec.set_payload(ms());
  // A parent that ends badly.
  static const wire::TaskPhase bad[] = {wire::FAILED, wire::CANCELED,
                                        wire::REMOVED, wire::EXPIRED};
  auto& b = p.add(w + "bad", 0);
  b.own_end = bad[(seed / 2) % 4];
  // Long enough to be running still when a user's end reaches its runner
  // (after a partition or a cut-off heals); a failing one fails each of its
  // three attempts after 50 to 250 ms.
  b.spec.set_payload(b.own_end == wire::FAILED ? std::to_string(50 + rng() % 200)
                                               : "8000");
  p.add(w + "ok", 0).spec.set_payload(ms());
  p.add(w + "child", 0, {w + "bad", w + "ok"}).spec.set_payload(ms());
  p.add(w + "grandchild", 0, {w + "child"}).spec.set_payload(ms());
  p.add(w + "anyway", 0, {w + "ok", w + "bad"}, true).spec.set_payload(ms());
  // Submitted in a shuffled order over 2 s, each to a node of its own.
  std::vector<millis> times;
  for (std::size_t i = 0; i < p.tasks.size(); ++i)
    times.push_back(static_cast<millis>(rng() % 2000) / 10 * 10);
  std::shuffle(times.begin(), times.end(), rng);
  for (std::size_t i = 0; i < p.tasks.size(); ++i) {
    p.tasks[i].when = times[i];
    p.tasks[i].at = pick();
  }
  auto& bt = p.tasks[p.index.at(w + "bad")];
  bt.end_at = bt.when + 300 + static_cast<millis>(rng() % 600);
  // A parent that comes late: its child waits meanwhile.
  auto& late_child = p.add(w + "early", 0, {w + "late"});
  late_child.spec.set_payload(ms());
  late_child.when = static_cast<millis>(rng() % 500) / 10 * 10;
  late_child.at = pick();
  auto when = late_child.when + 500 + static_cast<millis>(rng() % 1500) / 10 * 10;
  auto& late = p.add(w + "late", 0);
  late.spec.set_payload(ms());
  late.when = when;
  late.at = pick();
  return p;
}

/// Seed `seed`'s world: 3 to 5 nodes, loss up to 30%, duplication,
/// delays of 1-8 or 1-40 ms (reordering), 1-2 slots and 0-2 prefetch
/// seats, and by seed a partition, a node cut off for 2 s, clocks 300 ms
/// apart, journals, the crash of a child's submitter (staying down in one seed in
/// two: the coordinator adopts its tasks) and of a parent's runner.
workflow_options world_of(std::uint64_t seed, std::mt19937_64& rng,
                          const plan& p) {
  workflow_options o;
  o.seed = seed;
  static const double losses[] = {0.0, 0.1, 0.2, 0.3};
  o.faults.loss = losses[seed % 4];
  o.faults.duplicate = seed % 5 == 1 ? 0.1 : 0.0;
  o.faults.min_delay = 1;
  o.faults.max_delay = seed % 2 == 0 ? 40 : 8;
  o.queue.slots = 1 + (seed / 3) % 2;
  o.queue.prefetch = (seed / 5) % 3;
  o.clock_skew_ms = seed % 8 == 5 ? 300 : 0;
  o.journal = seed % 5 == 2;
  o.partition = seed % 3 == 0;
  o.partition_ms = 800 + static_cast<millis>(rng() % 1500);
  if (seed % 6 == 4) {
    o.isolate_ms = 2000;
    o.isolate_at_ms = 500 + static_cast<millis>(rng() % 1500);
  }
  auto w = "s" + std::to_string(seed) + "-";
  if (seed % 4 == 1 || seed % 4 == 2) {
    // The submitter of the child of the parent that ends badly.
    auto victim = p.of(w + "child").at;
    if (victim != "n1") {
      o.crash_submitter_of = w + "child";
      o.crash_submitter_at_ms = 500 + static_cast<millis>(rng() % 2000);
    }
  }
  if (seed % 3 != 1) {
    o.crash_runner = true;
    o.crash_runner_at_ms = static_cast<millis>(rng() % 2500);
  }
  o.down_ms = seed % 8 < 4 ? 3000 : -1;
  return o;
}

/// Seed `seed`'s workflows in its world; `journals`: as the seed says, or
/// none (the runs recorded below as regressions had none).
workflow_report run_seed(std::uint64_t seed, bool journals = true) {
  std::mt19937_64 rng(seed * 7919 + 1);
  std::vector<std::string> nodes;
  for (std::size_t i = 1; i <= 3 + seed % 3; ++i)
    nodes.push_back("n" + std::to_string(i));
  auto p = workflows(seed, nodes, rng);
  auto o = world_of(seed, rng, p);
  o.nodes = nodes.size();
  o.journal &= journals;
  return run_workflows(o, p);
}

// Seeds first..last: each must settle with no problem.
void sweep(std::uint64_t first, std::uint64_t last, const char* name) {
  workflow_report sum;
  std::size_t seeds = 0, with_fan_in_20 = 0;
  auto began = std::chrono::steady_clock::now();
  for (auto seed = first; seed <= last; ++seed) {
    auto r = run_seed(seed);
    INFO("seed " << seed << " (replay: DICE_DEPS_SEED=" << seed
                 << " dice_actor_tests '[dependencies][replay]'): "
                 << r.summary());
    CHECK(r.problems.empty());
    ++seeds;
    with_fan_in_20 += seed % 4 == 0 ? 1 : 0;
    sum.tasks += r.tasks;
    sum.done += r.done;
    sum.canceled_for_parents += r.canceled_for_parents;
    sum.ran_anyway += r.ran_anyway;
    sum.early_children += r.early_children;
    sum.orders_checked += r.orders_checked;
    sum.executions += r.executions;
    sum.crashes += r.crashes;
    sum.converged_at = std::max(sum.converged_at, r.converged_at);
  }
  std::chrono::duration<double> wall = std::chrono::steady_clock::now() - began;
  std::cout << name << ": seeds=" << seeds << " " << sum.summary()
            << " wall_s=" << wall.count() << "\n";
  // The runs exercise every path: children run, canceled, run anyway,
  // submitted before their parents, under crashes.
  CHECK(sum.orders_checked >= sum.tasks / 2);
  CHECK(sum.canceled_for_parents >= 2 * seeds);
  CHECK(sum.ran_anyway >= seeds);
  CHECK(sum.early_children >= seeds);
  CHECK(sum.crashes >= seeds / 2);
  CHECK(with_fan_in_20 > 0);
}

} // namespace

TEST_CASE("the dependency watch flags a child ordered to run before its "
          "parent ended in that node's replica or with wrong inputs",
          "[sim][node][dependencies]") {
  dependency_watch watch;
  auto spec = std::make_shared<wire::TaskSpec>(sleep_task(10));
  spec->set_id("c");
  spec->add_after("p");
  auto state = [](wire::TaskPhase phase, const std::string& result) {
    wire::TaskState s;
    s.set_phase(phase);
    s.set_result(result);
    return s;
  };
  auto told = [&](const std::string& node, const ev::task_changed& e) {
    ev::event ev{e};
    watch.see(node, trace_point{station::world, &ev});
  };
  auto ordered = [&](const std::string& node, const wire::TaskSpec& s) {
    ev::event ev{ev::run_order{"c", 1, std::make_shared<wire::TaskSpec>(s)}};
    watch.see(node, trace_point{station::executor, &ev});
  };
  auto with_input = *spec;
  auto* in = with_input.add_inputs();
  in->set_task_id("p");
  in->set_phase(wire::DONE);
  in->set_result("42");
  std::size_t seen = 0;
  auto flagged = [&] {
    auto n = watch.violations().size();
    bool more = n > seen;
    seen = n;
    return more;
  };
  told("n1", {"p", nullptr, state(wire::RUNNING, "")});
  told("n2", {"p", nullptr, state(wire::DONE, "42")});
  ordered("n2", with_input); // done there: fine
  CHECK_FALSE(flagged());
  ordered("n1", with_input); // still running in n1's replica
  CHECK(flagged());
  ordered("n3", with_input); // unknown in n3's
  CHECK(flagged());
  told("n1", {"p", nullptr, state(wire::DONE, "43")});
  ordered("n1", with_input); // an input that is not the parent's result
  CHECK(flagged());
  ordered("n1", *spec); // no inputs at all
  CHECK(flagged());
  watch.crashed("n2");
  ordered("n2", with_input); // the restarted process knows nothing yet
  CHECK(flagged());
  told("n2", {"p", nullptr, state(wire::DONE, "42")});
  ordered("n2", with_input);
  CHECK_FALSE(flagged());
  CHECK(watch.orders_checked() == 7);
}

// DICE_DEPS_SEED=N runs seed N of the sweep alone, to replay a failure.
TEST_CASE("one seed of the workflows sweep (DICE_DEPS_SEED=N)",
          "[sim][node][dependencies][replay]") {
  const char* seed = std::getenv("DICE_DEPS_SEED");
  if (seed == nullptr)
    return;
  auto r = run_seed(std::stoull(seed));
  std::cout << "seed " << seed << ": " << r.summary() << "\n";
  CHECK(r.problems.empty());
}

// Seeds that found children waiting forever (before
// known_tasks_machine::cancel_orphans): their parent ended badly, and
// their owner, the submitter, had died without any live node adopting
// them. In seed 142 the coordinator, cut off for 2 s, declared every
// other node dead and recovered it, the submitter too, before it knew of
// the child; the submitter then really crashed while still cut off from
// the coordinator, which so never recovered it again, and the others wait
// for the coordinator's recovery. Nobody answered for the child, so
// nobody canceled it. (19 of the 3000 soak seeds failed so.)
TEST_CASE("on production nodes children whose owner died unadopted are "
          "canceled when their parent ends badly (seeds 118 142 1077 1182 3828)",
          "[sim][node][dependencies]") {
  for (std::uint64_t seed : {118, 142, 1077, 1182, 3828}) {
    auto r = run_seed(seed, false);
    INFO("seed " << seed << ": " << r.summary());
    CHECK(r.problems.empty());
    CHECK(r.canceled_for_parents == 2);
  }
}

TEST_CASE("on production nodes 500 seeded workflows under every fault (loss "
          "duplication reordering partitions a cut-off node skewed clocks "
          "journals crashes of submitters and runners): no child runs before "
          "its parents are DONE in its replica and every workflow ends alike "
          "everywhere",
          "[sim][node][dependencies]") {
  sweep(1, 500, "node dependencies 500 seeds");
}

// The long soak CI leaves out (DICE_SOAK=1): 3000 more seeds, about 75 s.
TEST_CASE("soak: 3000 more seeds of workflows on production nodes "
          "(DICE_SOAK=1)",
          "[sim][node][dependencies][soak]") {
  const char* soak = std::getenv("DICE_SOAK");
  if (soak == nullptr || std::string(soak) != "1")
    return;
  sweep(1000, 3999, "node dependencies soak 3000 seeds");
}

namespace {

// A cluster whose every node's queue the watch sees.
actor_cluster_options watched(std::uint64_t seed, dependency_watch& watch) {
  actor_cluster_options o;
  o.seed = seed;
  o.trace = [&watch](const std::string& node, const trace_point& p) {
    watch.see(node, p);
  };
  return o;
}

wire::TaskSpec task(const std::string& id, millis ms,
                    std::vector<std::string> after = {},
                    bool run_after_failure = false) {
  auto s = sleep_task(ms);
  s.set_id(id);
  s.mutable_after()->Assign(after.begin(), after.end());
  s.set_run_after_failure(run_after_failure);
  return s;
}

// Whether `m` hands its receiver the spec of `task` (an ENQUEUE, an answer
// about an unknown or finished task, or anti-entropy that carries one).
bool carries_spec_of(const wire::Message& m, const std::string& task) {
  if (m.has_enqueue())
    return m.enqueue().spec().id() == task;
  if (m.has_take_my_task())
    return m.take_my_task().spec().id() == task;
  if (m.has_already_finished_task())
    return m.already_finished_task().spec().id() == task;
  if (m.has_sync_reply()) {
    for (const auto& op : m.sync_reply().ops())
      if (carries_spec_of(op, task))
        return true;
    for (const auto& t : m.sync_reply().snapshot())
      if (t.spec().id() == task)
        return true;
  }
  return false;
}

} // namespace

TEST_CASE("on production nodes a child submitted before its parent exists "
          "waits on every replica and never fails for it and runs once the "
          "parent is done", "[sim][node][dependencies]") {
  dependency_watch watch;
  actor_cluster c(watched(21, watch));
  start_nodes(c, 3);
  REQUIRE(c.submit("n2", task("report", 50, {"build"})));
  c.step(4000);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    CHECK(row_of(c, id, "report").state.phase() == wire::READY);
    CHECK(c.counters_of(id).parent_cancels == 0);
  }
  CHECK(c.executions().count("report") == 0);
  REQUIRE(c.submit("n3", task("build", 100)));
  c.step(3000);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    auto row = row_of(c, id, "report");
    CHECK(row.state.phase() == wire::DONE);
    CHECK(row.state.result() == "slept 50 ms after build=done");
    REQUIRE(row.spec.inputs_size() == 1);
    CHECK(row.spec.inputs(0).result() == "slept 100 ms");
  }
  check_converged(c);
  auto build = runs_of(c, "build");
  auto report = runs_of(c, "report");
  REQUIRE(build.size() == 1);
  REQUIRE(report.size() == 1);
  CHECK(report[0].start >= build[0].end);
  REQUIRE(report[0].parents.size() == 1);
  CHECK(report[0].parents[0].result_or_reason == "slept 100 ms");
  CHECK(watch.orders_checked() == 1);
  CHECK(watch.violations().empty());
}

TEST_CASE("on production nodes a child whose node never receives its "
          "parent's ENQUEUE runs there on the parent's end alone",
          "[sim][node][dependencies]") {
  // n2 holds the child and runs it, but every message that would give it
  // the parent's spec is lost: it hears only the parent's claim and end.
  // n1 runs the parent once its one slot frees; n3 (which acknowledges
  // the parent) is busy throughout.
  dependency_watch watch;
  actor_cluster c(watched(22, watch));
  queue_config busy;
  busy.prefetch = 0;
  c.start("n1", busy);
  c.start("n2", busy);
  c.start("n3", busy);
  c.step(1500);
  REQUIRE(c.submit("n3", 8000));
  // n1 never learns of the child either, so it cannot claim it first.
  c.drop_messages([](const std::string&, const std::string& to,
                     const wire::Message& m) {
    return (to == "n2" && carries_spec_of(m, "build"))
           || (to == "n1" && carries_spec_of(m, "report"));
  });
  REQUIRE(c.submit("n2", task("report", 50, {"build"})));
  REQUIRE(c.submit("n1", 1000)); // n1's slot is taken, so build waits
  REQUIRE(c.submit("n1", task("build", 100)));
  CHECK_FALSE(find_row(c, "n2", "build")); // n2 has not heard of it
  for (millis waited = 0; waited < 5000
                          && row_of(c, "n2", "report").state.phase() != wire::DONE;
       waited += 10)
    c.step(10);
  auto held = row_of(c, "n2", "build");
  CHECK_FALSE(held.has_spec); // known by its end only
  CHECK(held.state.phase() == wire::DONE);
  auto row = row_of(c, "n2", "report");
  REQUIRE(row.state.phase() == wire::DONE);
  CHECK(row.state.claim().node_id() == "n2");
  CHECK(row.state.result() == "slept 50 ms after build=done");
  bool ran_on_n2 = false;
  for (const auto& r : runs_of(c, "report"))
    if (r.node == "n2" && r.ok) {
      ran_on_n2 = true;
      REQUIRE(r.parents.size() == 1);
      CHECK(r.parents[0].result_or_reason == "slept 100 ms");
    }
  CHECK(ran_on_n2);
  c.drop_messages(nullptr);
  c.step(3000);
  check_converged(c);
  CHECK(c.counters_of("n2").parent_cancels == 0);
  CHECK(watch.orders_checked() >= 1);
  CHECK(watch.violations().empty());
}

TEST_CASE("on production nodes a parent that fails after its children's "
          "submitter died: the coordinator that adopted them cancels them "
          "once and a child that runs anyway sees the failure",
          "[sim][node][dependencies]") {
  dependency_watch watch;
  actor_cluster c(watched(23, watch));
  start_nodes(c, 4, 3000); // and elect a coordinator
  auto coordinator = c.coordinator_of("n1");
  REQUIRE(coordinator);
  auto submitter = *coordinator == "n3" ? "n2" : "n3";
  c.fail_executions([](const std::string& t, std::uint32_t) {
    return t == "build";
  });
  // build starts at once on its submitter, and dies with it.
  REQUIRE(c.submit(submitter, task("build", 400)));
  REQUIRE(c.submit(submitter, task("deploy", 50, {"build"})));
  REQUIRE(c.submit(submitter, task("notify", 50, {"build"}, true)));
  REQUIRE(runs_of(c, "build").size() == 1);
  c.crash(submitter);
  watch.crashed(submitter);
  c.step(15000);
  for (const auto& id : c.live_nodes()) {
    CAPTURE(id);
    CHECK(row_of(c, id, "build").state.phase() == wire::FAILED);
    auto deploy = row_of(c, id, "deploy");
    CHECK(deploy.state.phase() == wire::CANCELED);
    CHECK(deploy.state.reason() == "parent build failed");
    CHECK(deploy.owner == *coordinator);
    auto notify = row_of(c, id, "notify");
    CHECK(notify.state.phase() == wire::DONE);
    CHECK(notify.state.result() == "slept 50 ms after build=failed");
    CHECK(c.counters_of(id).parent_cancels == (id == *coordinator ? 1u : 0u));
  }
  check_converged(c);
  CHECK(runs_of(c, "build").size() == 3); // the crashed attempt, two failures
  CHECK(runs_of(c, "deploy").empty());
  auto notify = runs_of(c, "notify");
  REQUIRE(notify.size() == 1);
  REQUIRE(notify[0].parents.size() == 1);
  CHECK(notify[0].parents[0].state == "failed");
  CHECK(watch.violations().empty());
}
