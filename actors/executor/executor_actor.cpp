#include "executor/executor.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "executor/slot_pool.hpp"

namespace dice {

namespace {

// Who hears of executions, shared with the slot threads: a slot reports
// straight to the listeners, one hop fewer on every task's way to its
// result than through this actor.
struct execution_reports {
  std::mutex mtx;
  std::vector<execution_listener> listeners;
  bool open = true; // false once the actor is gone: its slots' last ends unsaid
  std::atomic<std::uint64_t> completed{0}, failed{0}, canceled{0};

  template <class Atom>
  void tell(Atom what, const execution_result& r) {
    std::lock_guard<std::mutex> guard{mtx};
    if (open)
      for (auto& who : listeners)
        caf::anon_send(who, what, r);
  }
  void close() {
    std::lock_guard<std::mutex> guard{mtx};
    open = false;
  }
};

struct executor_actor_state {
  std::shared_ptr<execution_reports> reports
    = std::make_shared<execution_reports>();
  std::unique_ptr<slot_pool> pool; // after `reports`: its slots use them
  std::uint64_t slots = 0;
  std::uint64_t started = 0;
  static inline const char* name = "executor";
  // Before the pool cancels and joins its slots: what they end then is
  // not reported, as when the slots reported through this actor.
  ~executor_actor_state() { reports->close(); }
};

using executor_ptr = executor::stateful_pointer<executor_actor_state>;

executor::behavior_type executor_fun(executor_ptr self, std::size_t slots,
                                     task_kinds kinds) {
  auto reports = self->state.reports;
  self->state.pool = std::make_unique<slot_pool>(
    slots, std::move(kinds), [reports](execution_result r) {
      if (r.ok)
        ++reports->completed;
      else if (r.canceled)
        ++reports->canceled;
      else
        ++reports->failed;
      reports->tell(executed_atom_v, r);
    });
  self->state.pool->on_begun([reports](execution_result r) {
    reports->tell(begun_atom_v, r);
  });
  self->state.slots = slots;
  // The state (and with it the pool, which cancels and joins its slots) is
  // destroyed when the actor exits.
  return {
    [self](run_atom, execution_request& req) {
      ++self->state.started;
      self->state.pool->run(std::move(req));
    },
    [self](cancel_atom, const std::string& task_id) {
      self->state.pool->cancel(task_id);
    },
    [self](subscribe_atom, execution_listener& who) {
      auto& r = *self->state.reports;
      std::lock_guard<std::mutex> guard{r.mtx};
      r.listeners.push_back(std::move(who));
    },
    [self](stats_atom) {
      const auto& st = self->state;
      executor_stats out;
      out.slots = st.slots;
      out.started = st.started;
      out.completed = st.reports->completed;
      out.failed = st.reports->failed;
      out.canceled = st.reports->canceled;
      out.busy = st.pool->busy();
      return out;
    },
  };
}

} // namespace

executor spawn_executor(caf::actor_system& sys, std::size_t slots,
                        task_kinds kinds) {
  return sys.spawn(executor_fun, slots, std::move(kinds));
}

} // namespace dice
