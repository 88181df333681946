#include "simulation/sim_executor.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace dice {

namespace {

struct sim_executor_state {
  std::vector<execution_listener> listeners;
  // The attempt each running task runs, and its run in the log; a cancel
  // removes it, and a timer for anything else is stale.
  std::map<std::string, std::pair<std::uint32_t, std::size_t>> running;
  std::deque<execution_request> queued;
  static inline const char* name = "sim_executor";
};

// A payload that is not a number of milliseconds runs for none.
millis duration_of(const std::string& payload) {
  millis ms = 0;
  for (char c : payload) {
    if (c < '0' || c > '9' || ms > 86'400'000)
      return ms;
    ms = ms * 10 + (c - '0');
  }
  return ms;
}

// A child's result names the parents its execution received, in order:
// " after a=done,b=failed" (their results are in the run log).
std::string after_parents(const execution_request& r) {
  std::string out;
  for (const auto& p : r.parents)
    out += (out.empty() ? " after " : ",") + p.task_id + "=" + p.state;
  return out;
}

} // namespace

executor spawn_sim_executor(caf::actor_system& sys, std::size_t slots,
                            sim_runs* log, std::string node,
                            std::function<millis()> clock) {
  // An execution's end is the actor's own timer message.
  using timed = executor::extend<caf::reacts_to<executed_atom, execution_result>>;
  using ptr = timed::stateful_pointer<sim_executor_state>;
  return sys.spawn([log, node, slots, clock](ptr self) -> timed::behavior_type {
    auto finish = [=](const std::string& task_id) {
      auto& running = self->state.running;
      auto it = running.find(task_id);
      if (it == running.end())
        return;
      log->runs[it->second.second].end = log->now();
      running.erase(it);
    };
    auto start_queued = [=] {
      auto& st = self->state;
      while (!st.queued.empty() && st.running.size() < slots) {
        auto r = std::move(st.queued.front());
        st.queued.pop_front();
        if (past_expiry(r, clock())) {
          execution_result expired;
          expired.task_id = r.task_id;
          expired.attempt = r.attempt;
          expired.expired = expired.final = true;
          expired.reason = expired_unstarted;
          expired.started_ms = expired.finished_ms = clock();
          for (auto& who : st.listeners)
            self->send(who, executed_atom_v, expired);
          continue;
        }
        ++log->starts[r.task_id];
        finish(r.task_id); // an older attempt of it, superseded
        st.running[r.task_id] = {r.attempt, log->runs.size()};
        log->runs.push_back({r.task_id, node, log->now(), -1, r.attempt,
                             false, r.parents});
        execution_result begun;
        begun.task_id = r.task_id;
        begun.attempt = r.attempt;
        begun.started_ms = clock();
        for (auto& who : st.listeners)
          self->send(who, begun_atom_v, begun);
        execution_result done;
        done.task_id = r.task_id;
        done.attempt = r.attempt;
        done.ok = !(log->fails && log->fails(r));
        if (done.ok)
          done.result = "slept " + r.payload + " ms" + after_parents(r);
        else
          done.reason = "failed on purpose (the simulation's --fail)";
        self->delayed_send(self, std::chrono::milliseconds(duration_of(r.payload)),
                           executed_atom_v, done);
      }
    };
    return {
      [=](run_atom, const execution_request& r) {
        self->state.queued.push_back(r);
        start_queued();
      },
      [=](cancel_atom, const std::string& task_id) {
        auto& st = self->state;
        finish(task_id);
        st.queued.erase(std::remove_if(st.queued.begin(), st.queued.end(),
                                       [&](const auto& q) {
                                         return q.task_id == task_id;
                                       }),
                        st.queued.end());
        start_queued();
      },
      [=](subscribe_atom, execution_listener& who) {
        self->state.listeners.push_back(std::move(who));
      },
      [=](executed_atom, const execution_result& r) {
        auto& running = self->state.running;
        auto it = running.find(r.task_id);
        if (it == running.end() || it->second.first != r.attempt)
          return;
        log->runs[it->second.second].ok = r.ok;
        finish(r.task_id);
        for (auto& who : self->state.listeners)
          self->send(who, executed_atom_v, r);
        start_queued();
      },
      [](stats_atom) { return executor_stats{}; },
    };
  });
}

} // namespace dice
