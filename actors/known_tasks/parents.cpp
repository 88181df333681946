#include "known_tasks/parents.hpp"

#include "known_tasks/state_names.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

parents_verdict judge_parents(const wire::TaskSpec& child,
                              const known_tasks& replica) {
  parents_verdict v;
  bool waits = false;
  for (const auto& parent : child.after()) {
    const auto* p = replica.find(parent);
    if (p == nullptr || !is_terminal(p->state.phase())) {
      waits = true;
      continue;
    }
    auto phase = p->state.phase();
    if (phase != wire::DONE && !child.run_after_failure()) {
      // One parent that cannot be done settles it, whatever the others do.
      if (v.what != parents_verdict::cancel)
        v.reason = "parent " + parent + " " + phase_name(phase);
      v.what = parents_verdict::cancel;
    }
    auto& in = v.inputs.emplace_back();
    in.set_task_id(parent);
    in.set_phase(phase);
    in.set_node(p->state.claim().node_id());
    in.set_finished_ms(p->state.finished_time_ms());
    if (phase == wire::DONE)
      in.set_result(p->state.result());
    else
      in.set_reason(p->state.reason());
  }
  if (!waits && v.what != parents_verdict::cancel)
    v.what = parents_verdict::run;
  return v;
}

void dependants::add(const wire::TaskSpec& child) {
  for (const auto& parent : child.after())
    children_[parent].insert(child.id());
}

void dependants::remove(const wire::TaskSpec& child) {
  for (const auto& parent : child.after())
    if (auto c = children_.find(parent); c != children_.end()) {
      c->second.erase(child.id());
      if (c->second.empty())
        children_.erase(c);
    }
}

const std::set<std::string>& dependants::of(const std::string& parent) const {
  static const std::set<std::string> none;
  auto c = children_.find(parent);
  return c == children_.end() ? none : c->second;
}

} // namespace dice
