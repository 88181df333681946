// What a worker sends the /workers routes, parsed; what it gets, rendered.
#include <catch2/catch.hpp>

#include "http_api/worker_json.hpp"

using namespace dice;

TEST_CASE("worker json: a join names its kinds, concurrency and name") {
  std::string err;
  auto r = parse_worker_join(R"({"kinds":["resize","thumb"],"concurrency":4,"name":"h:1"})", err);
  REQUIRE(r);
  CHECK(r->kinds == std::vector<std::string>{"resize", "thumb"});
  CHECK(r->concurrency == 4);
  CHECK(r->name == "h:1");
  r = parse_worker_join(R"({"kinds":["x"]})", err);
  REQUIRE(r);
  CHECK(r->concurrency == 1);
}

TEST_CASE("worker json: a bad join says what is wrong") {
  std::string err;
  CHECK_FALSE(parse_worker_join("", err));
  CHECK(err.find("'kinds'") != std::string::npos);
  CHECK_FALSE(parse_worker_join("[1]", err));
  CHECK(err == "the body must be a JSON object");
  CHECK_FALSE(parse_worker_join(R"({"kinds":[]})", err));
  CHECK_FALSE(parse_worker_join(R"({"kinds":[1]})", err));
  CHECK(err == "'kinds' must hold strings");
  CHECK_FALSE(parse_worker_join(R"({"kinds":["x"],"concurrency":0})", err));
  CHECK(err == "'concurrency' must be a whole number from 1 to 1024");
  CHECK_FALSE(parse_worker_join(R"({"kinds":["x"],"concurrency":-2})", err));
  CHECK_FALSE(parse_worker_join(R"({"kinds":["x"],"slots":2})", err));
  CHECK(err == "unknown field 'slots'");
}

TEST_CASE("worker json: a take asks for up to max jobs, waiting up to 30 s") {
  std::string err;
  auto t = parse_worker_take("", err);
  REQUIRE(t);
  CHECK(t->max == 1);
  CHECK(t->wait_ms == 10000);
  t = parse_worker_take(R"({"max":0,"wait_ms":0})", err);
  REQUIRE(t);
  CHECK(t->max == 0);
  CHECK(t->wait_ms == 0);
  CHECK_FALSE(parse_worker_take(R"({"wait_ms":30001})", err));
  CHECK(err == "'wait_ms' must be a whole number from 0 to 30000");
  CHECK_FALSE(parse_worker_take(R"({"max":1.5})", err));
}

TEST_CASE("worker json: an answer is a result or a reason") {
  std::string err;
  auto e = parse_worker_done(R"({"job":7,"ok":true,"result":"42"})", err);
  REQUIRE(e);
  CHECK(e->job == 7);
  CHECK(e->ok);
  CHECK(e->result_or_reason == "42");
  e = parse_worker_done(R"({"job":7,"ok":false,"reason":"bad image","final":true})", err);
  REQUIRE(e);
  CHECK_FALSE(e->ok);
  CHECK(e->final);
  CHECK(e->result_or_reason == "bad image");
  e = parse_worker_done(R"({"job":7,"ok":false})", err);
  REQUIRE(e);
  CHECK(e->result_or_reason == "the worker gave no reason");
  e = parse_worker_done(R"({"job":7,"ok":true,"final":true})", err);
  REQUIRE(e);
  CHECK_FALSE(e->final); // a success is never a final failure
  CHECK_FALSE(parse_worker_done(R"({"ok":true})", err));
  CHECK(err == "'job' must be the number take gave");
  CHECK_FALSE(parse_worker_done(R"({"job":1})", err));
  CHECK_FALSE(parse_worker_done(R"({"job":1,"ok":true,"result":3})", err));
  CHECK(err == "'result' must be a string");
}

TEST_CASE("worker json: a take's jobs and cancels, and the worker list") {
  worker_take t;
  t.jobs.push_back(worker_job{3, "n-1", 2, "resize", "img", 500});
  t.canceled = {1};
  auto j = worker_take_json(t);
  CHECK(j["jobs"][0]["job"] == 3);
  CHECK(j["jobs"][0]["task_id"] == "n-1");
  CHECK(j["jobs"][0]["attempt"] == 2);
  CHECK(j["jobs"][0]["payload"] == "img");
  CHECK(j["jobs"][0]["time_limit_ms"] == 500);
  CHECK(j["cancel"] == nlohmann::json::array({1}));
  worker_report r;
  r.workers.push_back(worker_view{"1-w1", "h:1", {"resize"}, 2, 1, 5, 100});
  r.kinds = {"resize"};
  r.lease_ms = 3000;
  r.counters.jobs_handed = 6;
  auto w = workers_json(r);
  CHECK(w["workers"][0]["id"] == "1-w1");
  CHECK(w["workers"][0]["holding"] == 1);
  CHECK(w["kinds"] == nlohmann::json::array({"resize"}));
  CHECK(w["jobs_handed"] == 6);
  CHECK(w["lease_ms"] == 3000);
}
