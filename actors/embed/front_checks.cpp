#include "embed/front_checks.hpp"

#include "http_api/event_json.hpp"
#include "http_api/task_json.hpp"
#include "known_tasks/task_policy.hpp"
#include "mutex/lock_name.hpp"

namespace dice::embed {

namespace {

template <class Duration>
millis ms(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

} // namespace

std::variant<wire::TaskSpec, problem> task_spec_of(const task& t, millis now) {
  submit_limits limits;
  if (t.payload.size() > limits.max_payload_bytes)
    return problem{refusal::oversize,
                   "payload of " + std::to_string(t.payload.size())
                     + " bytes exceeds the limit of "
                     + std::to_string(limits.max_payload_bytes)};
  if (auto p = lock_list_problem(t.locks); !p.empty())
    return problem{refusal::invalid, p};
  submit_request sub;
  sub.kind = t.kind;
  sub.payload = t.payload;
  sub.priority = t.priority;
  sub.data_objects.assign(t.data_objects.begin(), t.data_objects.end());
  sub.locks = t.locks;
  auto& policy = sub.policy;
  policy.time_limit_ms = ms(t.time_limit);
  policy.max_attempts = t.max_attempts;
  policy.backoff_ms = ms(t.backoff);
  policy.delay_ms = ms(t.delay);
  policy.not_before_ms = ms(t.not_before.time_since_epoch());
  policy.expires_ms = ms(t.expires.time_since_epoch());
  policy.keep_for_ms = ms(t.keep_for) < 0 ? -1 : ms(t.keep_for);
  policy.key = t.key;
  policy.after = t.after;
  policy.run_after_failure = t.run_after_parent_failure;
  if (auto p = policy_problem(policy, now); !p.empty())
    return problem{refusal::invalid, p};
  // The spec POST /tasks makes of the same submit.
  auto spec = std::move(specs_of(sub, now).front());
  if (auto p = spec_size_problem(spec); !p.empty())
    return problem{refusal::oversize, p};
  return spec;
}

std::optional<problem> publish_problem(const std::string& topic,
                                       const std::string& data) {
  if (auto p = lock_name_problem(topic, "topic"); !p.empty())
    return problem{refusal::invalid, p};
  if (data.size() > max_event_bytes)
    return problem{refusal::oversize,
                   "data over " + std::to_string(max_event_bytes / 1024) + " KiB"};
  return std::nullopt;
}

} // namespace dice::embed
