#include "executor/executor.hpp"

#include <memory>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "executor/slot_pool.hpp"

namespace dice {

namespace {

struct executor_actor_state {
  std::unique_ptr<slot_pool> pool;
  std::vector<execution_listener> listeners;
  executor_stats stats;
  static inline const char* name = "executor";
};

using executor_ptr = executor::stateful_pointer<executor_actor_state>;

executor::behavior_type executor_fun(executor_ptr self, std::size_t slots,
                                     task_kinds kinds) {
  executor handle = self;
  // Slot threads only enqueue a message; the actor does the bookkeeping.
  self->state.pool = std::make_unique<slot_pool>(
    slots, std::move(kinds), [handle](execution_result r) {
      caf::anon_send(handle, executed_atom_v, std::move(r));
    });
  self->state.pool->on_begun([handle](execution_result r) {
    caf::anon_send(handle, begun_atom_v, std::move(r));
  });
  self->state.stats.slots = slots;
  // The state (and with it the pool, which cancels and joins its slots) is
  // destroyed when the actor exits; that also drops the slots' handle.
  return {
    [self](run_atom, execution_request& req) {
      ++self->state.stats.started;
      self->state.pool->run(std::move(req));
    },
    [self](cancel_atom, const std::string& task_id) {
      self->state.pool->cancel(task_id);
    },
    [self](subscribe_atom, execution_listener& who) {
      self->state.listeners.push_back(std::move(who));
    },
    [self](begun_atom, execution_result& r) {
      for (auto& who : self->state.listeners)
        self->send(who, begun_atom_v, r);
    },
    [self](executed_atom, execution_result& r) {
      auto& st = self->state.stats;
      if (r.ok)
        ++st.completed;
      else if (r.canceled)
        ++st.canceled;
      else
        ++st.failed;
      for (auto& who : self->state.listeners)
        self->send(who, executed_atom_v, r);
    },
    [self](stats_atom) {
      auto st = self->state.stats;
      st.busy = self->state.pool->busy();
      return st;
    },
  };
}

} // namespace

executor spawn_executor(caf::actor_system& sys, std::size_t slots,
                        task_kinds kinds) {
  return sys.spawn(executor_fun, slots, std::move(kinds));
}

} // namespace dice
