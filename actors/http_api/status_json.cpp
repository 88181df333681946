#include "http_api/status_json.hpp"

#include "http_api/task_json.hpp"

namespace dice {

nlohmann::json health_json(const std::string& self_id) {
  return {{"id", self_id}, {"ok", true}};
}

nlohmann::json nodes_json(const std::string& self_id,
                          const std::vector<node_view>& nodes) {
  auto rows = nlohmann::json::array();
  for (auto& n : nodes)
    rows.push_back({{"id", n.id},
                    {"addr", n.addr},
                    {"state", to_string(n.state)},
                    {"incarnation", n.incarnation},
                    {"last_seen_ms", n.last_seen_ms},
                    {"super_peer", n.super_peer},
                    {"attached_to", n.attached_to.empty()
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(n.attached_to)}});
  return {{"self", self_id}, {"nodes", rows}};
}

nlohmann::json bridge_json(const bridge_counters& c) {
  nlohmann::json j = {
    {"datagrams_sent", c.datagrams_sent},
    {"bytes_sent", c.bytes_sent},
    {"send_errors", c.send_errors},
    {"bundles_sent", c.bundles_sent},
    // queue datagrams passed on for their origin, as a super-peer
    {"relayed", c.relayed},
    // ... of them, passed to everyone: taken for a super-peer it is not
    {"relayed_to_everyone", c.relayed_to_everyone},
    {"unaddressed", c.unaddressed},
    {"sent_over_bundle_bytes", c.sent_over_bundle_bytes},
    {"over_bundle_bytes_by_body", c.over_bundle_bytes_by_body},
    {"datagrams_received", c.datagrams_received},
    {"bytes_received", c.bytes_received},
    {"accepted", c.accepted},
    {"bundles_received", c.bundles_received},
    // restarted memory-only peers asking which incarnation of their id we
    // heard: answered, or not (over the rate limit)
    {"incarnation_probes_answered", c.probes_answered},
    {"incarnation_probes_unanswered", c.probes_unanswered},
    {"dropped", c.dropped()},
    {"dropped_by_reason",
     {{"malformed", c.dropped_malformed},
      {"unauthenticated", c.dropped_unauthenticated},
      {"replayed", c.dropped_replayed},
      {"stale_incarnation", c.dropped_stale_incarnation},
      {"oversize", c.dropped_oversize},
      {"version", c.dropped_version},
      {"cluster", c.dropped_cluster},
      {"self", c.dropped_self}}},
  };
  // Per cluster key (keyring): datagrams sealed with it and accepted under
  // it; and those dropped for naming a key this node does not hold.
  auto by_key = nlohmann::json::object();
  for (const auto& [id, k] : c.by_key)
    by_key[id] = {{"sent", k.sent}, {"received", k.received}};
  j["by_key"] = std::move(by_key);
  j["unknown_key_ids"] = c.unknown_key_ids;
  return j;
}

nlohmann::json error_json(const std::string& message) {
  return {{"error", message}};
}

} // namespace dice

namespace dice {

nlohmann::json task_counts_json(const task_counts& counts) {
  nlohmann::json j{{"total", counts.total()}};
  for (const auto& s : shown_states)
    j[s.name] = count_in(counts, s);
  return j;
}

nlohmann::json queue_json(const queue_counters& c) {
  return {{"ops_sent", c.ops_sent},
          {"ops_received", c.ops_received},
          {"duplicate_ops", c.duplicate_ops},
          {"claims", c.claims},
          {"claims_lost", c.claims_lost},
          {"executions_started", c.executions_started},
          {"executions_canceled", c.executions_canceled},
          {"requeues", c.requeues},
          {"executors_asked", c.executors_asked},
          {"retries", c.retries},
          {"expired", c.expired},
          {"tasks_forgotten", c.tasks_forgotten},
          {"forgotten_refused", c.forgotten_refused},
          {"running_heartbeats", c.running_heartbeats},
          {"start_marks", c.start_marks},
          {"sync_requests", c.sync_requests},
          {"sync_replies", c.sync_replies},
          {"snapshots_applied", c.snapshots_applied},
          {"rejected", c.rejected},
          {"recoveries", c.recoveries},
          {"recoveries_heard", c.recoveries_heard},
          {"adopted", c.adopted},
          {"parent_cancels", c.parent_cancels},
          {"schedule_ticks", c.schedule_ticks},
          {"stable_points_sent", c.stable_points_sent},
          {"stable_points_applied", c.stable_points_applied},
          {"acks_sent", c.acks_sent},
          {"matched_claims", c.matched_claims},
          {"matched_window_ms", c.matched_window_ms},
          {"prefetch", c.prefetch},
          {"origins_pruned", c.origins_pruned},
          {"origins_pruned_early", c.origins_pruned_early},
          {"journal",
           {{"records_loaded", c.journal_records_loaded},
            {"bad_tails", c.journal_bad_tails},
            {"records_written", c.journal_records_written},
            {"bytes_written", c.journal_bytes_written},
            {"syncs", c.journal_syncs},
            {"compactions", c.journal_compactions},
            {"write_errors", c.journal_write_errors}}}};
}

nlohmann::json election_json(const election_view& v) {
  nlohmann::json j;
  j["algorithm"] = v.algorithm;
  j["coordinator"] = v.coordinator ? nlohmann::json(*v.coordinator)
                                   : nlohmann::json(nullptr);
  j["state"] = v.state;
  j["group"] = v.group;
  j["members"] = v.members;
  j["elections_started"] = v.elections_started;
  j["ignored_messages"] = v.ignored;
  j["malformed_messages"] = v.malformed;
  j["other_algorithm_messages"] = v.other_algorithm;
  j["mismatched_peers"] = v.mismatched; // {"peer": "its algorithm"}
  return j;
}

} // namespace dice
