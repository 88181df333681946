#include <catch2/catch.hpp>

#include "http_api/task_json.hpp"

using namespace dice;

namespace {

const std::vector<std::string> kinds{"cpu", "echo", "sleep"};

std::string parse_error(const std::string& body, submit_limits limits = {}) {
  std::string err;
  auto r = parse_submit(body, kinds, limits, err);
  return r ? "" : err;
}

} // namespace

TEST_CASE("a submission parses with defaults", "[http_api]") {
  std::string err;
  auto r = parse_submit(R"({"kind":"sleep","payload":"100"})", kinds, {}, err);
  REQUIRE(r);
  CHECK(r->kind == "sleep");
  CHECK(r->payload == "100");
  CHECK(r->priority == 0);
  CHECK(r->count == 1);
  r = parse_submit(R"({"kind":"cpu","payload":5000,"priority":-3,"count":128})",
                   kinds, {}, err);
  REQUIRE(r);
  CHECK(r->payload == "5000");
  CHECK(r->priority == -3);
  CHECK(r->count == 128);
}

TEST_CASE("bad submissions get a message naming the problem", "[http_api]") {
  CHECK(parse_error("{") == "body is not valid JSON");
  CHECK(parse_error("[1]") == "body must be a JSON object");
  CHECK(parse_error(R"({"payload":"1"})") == "'kind' must be a string");
  CHECK(parse_error(R"({"kind":"rm"})") == "unknown kind 'rm': no live member runs it (known: cpu, echo, sleep)");
  // dice test's evaluation records are the tester's alone.
  CHECK(parse_error(R"({"kind":"evaluation","payload":"x"})")
        == "kind 'evaluation' is dice test's own: run tests with dice test "
           "(POST /evaluation)");
  CHECK(parse_error(R"({"kind":"echo","payload":[1]})")
        == "'payload' must be a string or an integer");
  CHECK(parse_error(R"({"kind":"echo","count":0})")
        == "'count' must be an integer from 1 to 10000");
  CHECK(parse_error(R"({"kind":"echo","count":"3"})")
        == "'count' must be an integer from 1 to 10000");
  CHECK(parse_error(R"({"kind":"echo","priority":1.5})")
        == "'priority' must be an integer from -1000000 to 1000000");
  CHECK(parse_error(R"({"kind":"echo","colour":1})") == "unknown field 'colour'");
  submit_limits small;
  small.max_payload_bytes = 4;
  CHECK(parse_error(R"({"kind":"echo","payload":"12345"})", small)
        == "payload of 5 bytes exceeds the limit of 4");
}

// Caught by fuzz/submit_json_fuzz.cpp: integers above INT64_MAX wrapped to
// negative values, so these were accepted as priority -1 and payload "-1".
TEST_CASE("integers beyond 64-bit signed are refused or kept as written",
          "[http_api]") {
  CHECK(parse_error(R"({"kind":"echo","priority":18446744073709551615})")
        == "'priority' must be an integer from -1000000 to 1000000");
  CHECK(parse_error(R"({"kind":"echo","priority":9223372036854775808})")
        == "'priority' must be an integer from -1000000 to 1000000");
  CHECK(parse_error(R"({"kind":"echo","count":18446744073709551615})")
        == "'count' must be an integer from 1 to 10000");
  std::string err;
  auto r = parse_submit(R"({"kind":"echo","payload":18446744073709551615})",
                        kinds, {}, err);
  REQUIRE(r);
  CHECK(r->payload == "18446744073709551615");
  r = parse_submit(R"({"kind":"echo","payload":-9223372036854775808,)"
                   R"("priority":-1000000,"count":10000})",
                   kinds, {}, err);
  REQUIRE(r);
  CHECK(r->payload == "-9223372036854775808");
  CHECK(r->priority == -1'000'000);
  CHECK(r->count == 10'000);
}

TEST_CASE("task states render with their phase names", "[http_api]") {
  for (const auto& s : shown_states)
    CHECK(parse_state(s.name)->phase == s.phase);
  CHECK_FALSE(parse_state("finished"));
  CHECK(parse_state("claimed")->claimed_ahead == true);
  CHECK(parse_state("running")->claimed_ahead == false);
  wire::TaskSpec spec;
  spec.set_id("t1");
  spec.set_kind("echo");
  wire::TaskState st;
  st.set_phase(wire::DONE);
  st.set_attempt(2);
  st.mutable_claim()->set_node_id("n3");
  st.set_result("hi");
  auto j = task_json(spec, st, true);
  CHECK(j["state"] == "done");
  CHECK(j["node"] == "n3");
  CHECK(j["attempts"] == 2);
  CHECK(j["result"] == "hi");
  CHECK_FALSE(task_json(spec, st, false).contains("result"));
}

TEST_CASE("task timings render as wall-clock ms, null while unknown",
          "[http_api]") {
  wire::TaskSpec spec;
  spec.set_id("t1");
  spec.set_kind("sleep");
  spec.set_enqueue_time_ms(1000);
  wire::TaskState st;
  st.set_phase(wire::READY);
  st.set_attempt(1);
  auto ready = task_json(spec, st, false);
  CHECK(ready["ready_at_ms"] == 1000); // a first attempt: from its enqueue
  CHECK(ready["started_at_ms"].is_null());
  CHECK(ready["finished_at_ms"].is_null());
  st.set_attempt(2); // re-queued: unknown until its report
  CHECK(task_json(spec, st, false)["ready_at_ms"].is_null());
  st.set_phase(wire::DONE);
  st.set_ready_time_ms(1500);
  st.set_started_time_ms(1600);
  st.set_finished_time_ms(1900);
  auto done = task_json(spec, st, true);
  CHECK(done["ready_at_ms"] == 1500);
  CHECK(done["started_at_ms"] == 1600);
  CHECK(done["finished_at_ms"] == 1900);
}

TEST_CASE("GET /tasks?ids= takes a comma list, and refuses none or too many",
          "[http_api]") {
  std::string err;
  auto ids = parse_ids("a-1-7,b-2-9,,c", err);
  REQUIRE(ids);
  CHECK(*ids == std::vector<std::string>{"a-1-7", "b-2-9", "c"});
  CHECK_FALSE(parse_ids(",,", err));
  CHECK(err.find("at least one") != std::string::npos);
  std::string many;
  for (std::size_t i = 0; i <= max_query_ids; ++i)
    many += "t" + std::to_string(i) + ",";
  CHECK_FALSE(parse_ids(many, err));
  CHECK(err.find("at most " + std::to_string(max_query_ids)) != std::string::npos);
}

TEST_CASE("a submission may name the data objects each node holds",
          "[http_api]") {
  std::string err;
  auto r = parse_submit(R"({"kind":"echo","payload":"x","data_objects":{"b":3,"c":0}})",
                        kinds, {}, err);
  REQUIRE(r);
  CHECK(r->data_objects
        == std::vector<std::pair<std::string, std::uint32_t>>{{"b", 3}, {"c", 0}});
  CHECK(parse_error(R"({"kind":"echo","data_objects":[1]})")
        == "'data_objects' must be an object: {\"node id\": count}");
  CHECK(parse_error(R"({"kind":"echo","data_objects":{"b":-1}})")
        == "'data_objects' maps a node id (1 to 256 bytes) to a count from 0 "
           "to 4294967295");
  CHECK(parse_error(R"({"kind":"echo","data_objects":{"":1}})")
        == "'data_objects' maps a node id (1 to 256 bytes) to a count from 0 "
           "to 4294967295");
  submit_limits few;
  few.max_data_objects = 1;
  CHECK(parse_error(R"({"kind":"echo","data_objects":{"a":1,"b":1}})", few)
        == "'data_objects' names 2 nodes; at most 1");
}

TEST_CASE("a submission carries the task's own policy, checked at the submit",
          "[http_api][policy]") {
  std::string err;
  const millis now = 1'000'000;
  auto r = parse_submit(R"({"kind":"echo","payload":"x","time_limit_ms":30000,
                           "retries":2,"backoff_ms":500,"delay_ms":60000,
                           "expires_in_ms":120000,"key":"order-7"})",
                        kinds, {}, err, now);
  REQUIRE(r);
  CHECK(r->policy.time_limit_ms == 30'000);
  CHECK(r->policy.max_attempts == 3); // retries 2: at most 3 executions
  CHECK(r->policy.backoff_ms == 500);
  CHECK(r->policy.delay_ms == 60'000);
  CHECK(r->policy.expires_in_ms == 120'000);
  CHECK(r->policy.key == "order-7");
  CHECK(parse_error(R"({"kind":"echo","max_attempts":2,"retries":1})")
        == "give 'max_attempts' or 'retries', not both");
  CHECK(parse_error(R"({"kind":"echo","max_attempts":0})")
        == "'max_attempts' must be an integer from 1 to 100");
  CHECK(parse_error(R"({"kind":"echo","delay_ms":-1})")
        == "'delay_ms' must be a whole number of ms, 0 or more");
  CHECK(parse_error(R"({"kind":"echo","key":""})") == "'key' must be a non-empty string");
  CHECK(parse_error(R"({"kind":"echo","time_limit_ms":"30s"})")
        == "'time_limit_ms' must be a whole number of ms, 0 or more");
  REQUIRE_FALSE(parse_submit(R"({"kind":"echo","delay_ms":5000,"expires_in_ms":100})",
                             kinds, {}, err, now));
  CHECK(err == "the task would expire before it may start (expiry is not after its delay)");
}

TEST_CASE("a task's policy and a pending retry show in its detail",
          "[http_api][policy]") {
  wire::TaskSpec spec;
  spec.set_id("key-1");
  spec.set_kind("echo");
  spec.set_key("order-7");
  spec.set_time_limit_ms(30'000);
  spec.set_expires_ms(9'000'000);
  wire::TaskState s;
  s.set_phase(wire::READY);
  s.set_attempt(2);
  s.set_not_before_ms(5'000'000);
  auto j = task_json(spec, s, true);
  CHECK(j["key"] == "order-7");
  CHECK(j["time_limit_ms"] == 30'000);
  CHECK(j["expires_ms"] == 9'000'000);
  CHECK(j["max_attempts"].is_null());
  CHECK(j["retry_at_ms"] == 5'000'000);
  s.set_phase(wire::EXPIRED);
  CHECK(task_json(spec, s, false)["state"] == "expired");
  CHECK(parse_state("expired")->phase == wire::EXPIRED);
}
