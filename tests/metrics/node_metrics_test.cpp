#include <set>

#include <catch2/catch.hpp>

#include "metrics/node_metrics.hpp"

using namespace dice;

namespace {

node_metrics sample() {
  node_metrics m;
  m.wire.datagrams_sent = 10;
  m.wire.bytes_received = 2048;
  m.wire.dropped_replayed = 3;
  m.wire.probes_answered = 2;
  m.wire.by_kind["queue"] = {6, 600, 4, 420};
  m.queue.claims = 7;
  m.queue.claims_lost = 2;
  m.queue.executions_canceled = 1;
  m.exec.slots = 2;
  m.exec.busy = 1;
  m.exec.completed = 5;
  m.tasks.by_phase[wire::READY] = 4;
  m.tasks.by_phase[wire::DONE] = 5;
  m.nodes = {{"a", "127.0.0.1:1", peer_state::alive, 1, 0},
             {"b", "127.0.0.1:2", peer_state::suspect, 1, 1200},
             {"c", "127.0.0.1:3", peer_state::alive, 1, 10}};
  m.election.algorithm = "bully";
  m.election.state = "normal";
  m.election.coordinator = "c";
  m.http.connections_open = 2;
  m.version = "1.2.3";
  m.locks.local = {{"db", true, "o1", {"o2", "o3"}}, {"cache", false, "", {"o4"}}};
  m.locks.granted = 5;
  m.locks.lost = 1;
  m.tests = {3, 40, 38, 2};
  m.events = {4, 9, 1, 2, 3, 0};
  return m;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

} // namespace

TEST_CASE("the exposition shows what a scraper needs: queue depth per state, "
          "claims, datagrams, drops, members, election", "[metrics]") {
  auto text = exposition_text(metric_families(sample()));
  INFO(text);
  CHECK(has_line(text, "# TYPE dice_tasks gauge"));
  CHECK(has_line(text, "dice_tasks{state=\"ready\"} 4"));
  CHECK(has_line(text, "dice_tasks{state=\"done\"} 5"));
  CHECK(has_line(text, "dice_tasks{state=\"running\"} 0"));
  CHECK(has_line(text, "# TYPE dice_claims_total counter"));
  CHECK(has_line(text, "dice_claims_total{outcome=\"made\"} 7"));
  CHECK(has_line(text, "dice_claims_total{outcome=\"lost\"} 2"));
  CHECK(has_line(text, "dice_duplicate_executions_total 1"));
  CHECK(has_line(text, "dice_executions_total{outcome=\"done\"} 5"));
  CHECK(has_line(text, "dice_executor_slots 2"));
  CHECK(has_line(text, "dice_executor_busy_slots 1"));
  CHECK(has_line(text, "dice_datagrams_total{direction=\"sent\"} 10"));
  CHECK(has_line(text, "dice_datagram_bytes_total{direction=\"received\"} 2048"));
  CHECK(has_line(text, "dice_datagrams_dropped_total{reason=\"replayed\"} 3"));
  CHECK(has_line(text, "dice_incarnation_probes_total{answer=\"sent\"} 2"));
  CHECK(has_line(text, "dice_incarnation_probes_total{answer=\"refused\"} 0"));
  CHECK(has_line(text, "dice_messages_total{direction=\"sent\",kind=\"queue\"} 6"));
  CHECK(has_line(text, "dice_messages_total{direction=\"received\",kind=\"queue\"} 4"));
  CHECK(has_line(text, "dice_message_bytes_total{direction=\"sent\",kind=\"queue\"} 600"));
  CHECK(has_line(text, "dice_message_bytes_total{direction=\"received\",kind=\"queue\"} 420"));
  // A family without traffic yet is there at 0.
  CHECK(has_line(text, "dice_messages_total{direction=\"sent\",kind=\"mutex\"} 0"));
  CHECK(has_line(text, "dice_members{state=\"alive\"} 2"));
  CHECK(has_line(text, "dice_members{state=\"suspect\"} 1"));
  CHECK(has_line(text, "dice_members{state=\"dead\"} 0"));
  CHECK(has_line(text, "dice_election_state{algorithm=\"bully\",state=\"normal\"} 1"));
  CHECK(has_line(text, "dice_election_state{algorithm=\"bully\",state=\"election\"} 0"));
  CHECK(has_line(text, "dice_coordinator{coordinator=\"c\"} 1"));
  CHECK(has_line(text, "dice_http_connections_open 2"));
  CHECK(has_line(text, "dice_build_info{version=\"1.2.3\"} 1"));
  CHECK(has_line(text, "dice_locks_held 1"));
  CHECK(has_line(text, "dice_lock_waiters 3"));
  CHECK(has_line(text, "dice_locks_total{outcome=\"granted\"} 5"));
  CHECK(has_line(text, "dice_locks_total{outcome=\"lost\"} 1"));
  CHECK(has_line(text, "dice_events_total{outcome=\"published\"} 4"));
  CHECK(has_line(text, "dice_events_total{outcome=\"delivered\"} 9"));
  CHECK(has_line(text, "dice_events_total{outcome=\"duplicate\"} 2"));
  CHECK(has_line(text, "dice_events_total{outcome=\"resent\"} 3"));
  CHECK(has_line(text, "dice_events_held 1"));
  CHECK(has_line(text, "dice_test_modules_total 3"));
  CHECK(has_line(text, "dice_tests_total{result=\"passed\"} 38"));
  CHECK(has_line(text, "dice_tests_total{result=\"failed\"} 2"));
}

TEST_CASE("every family has HELP and TYPE once, and names are unique",
          "[metrics]") {
  auto families = metric_families(sample());
  std::set<std::string> names;
  for (auto& f : families) {
    CHECK(names.insert(f.name).second);
    CHECK(f.name.rfind("dice_", 0) == 0);
    CHECK_FALSE(f.help.empty());
    // Prometheus' convention, which promtool checks: counters end in _total.
    if (f.type == prometheus::MetricType::Counter)
      CHECK(f.name.substr(f.name.size() - 6) == "_total");
  }
  auto text = exposition_text(families);
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + 1))
      ++n;
    return n;
  };
  for (auto& n : names) {
    CHECK(count("# HELP " + n + " ") == 1);
    CHECK(count("# TYPE " + n + " ") == 1);
  }
}

TEST_CASE("label values are escaped: a coordinator id with quotes or "
          "backslashes cannot break the format", "[metrics]") {
  auto m = sample();
  m.election.coordinator = "we\"ird\\id\nx";
  auto text = exposition_text(metric_families(m));
  CHECK(text.find(R"(dice_coordinator{coordinator="we\"ird\\id\nx"} 1)")
        != std::string::npos);
}

TEST_CASE("no coordinator: the coordinator family has no sample", "[metrics]") {
  auto m = sample();
  m.election.coordinator.reset();
  m.election.state = "election";
  auto text = exposition_text(metric_families(m));
  CHECK(text.find("dice_coordinator{") == std::string::npos);
  CHECK(has_line(text, "dice_election_state{algorithm=\"bully\",state=\"election\"} 1"));
}

TEST_CASE("datagrams per cluster key: sent, received and unknown key ids",
          "[metrics][keyring]") {
  auto m = sample();
  m.wire.by_key["aaaaaaaa"] = {5, 7};
  m.wire.unknown_key_ids["0badc0de"] = 2;
  auto text = exposition_text(metric_families(m));
  INFO(text);
  CHECK(has_line(text, "# TYPE dice_datagrams_by_key_total counter"));
  CHECK(has_line(text, "dice_datagrams_by_key_total{direction=\"sent\",key=\"aaaaaaaa\"} 5"));
  CHECK(has_line(text, "dice_datagrams_by_key_total{direction=\"received\",key=\"aaaaaaaa\"} 7"));
  CHECK(has_line(text, "dice_datagrams_by_key_total{direction=\"unknown\",key=\"0badc0de\"} 2"));
}
