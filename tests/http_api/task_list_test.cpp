#include <algorithm>

#include <catch2/catch.hpp>

#include "http_api/task_list.hpp"
#include "known_tasks/id_order.hpp"

using namespace dice;

namespace {

using params = std::multimap<std::string, std::string>;

std::string refusal(const params& p) {
  std::string err;
  auto r = parse_task_list(p, err);
  return r ? "" : err;
}

task_row row(const std::string& id, wire::TaskPhase phase,
             const std::string& node = "") {
  task_row r;
  r.has_spec = true;
  r.spec.set_id(id);
  r.spec.set_kind("sleep");
  r.state.set_phase(phase);
  if (!node.empty())
    r.state.mutable_claim()->set_node_id(node);
  if (phase == wire::DONE)
    r.state.set_result("slept " + id);
  return r;
}

} // namespace

TEST_CASE("ids sort with their numbers as numbers", "[http_api]") {
  CHECK(id_before("a-2", "a-10"));
  CHECK_FALSE(id_before("a-10", "a-2"));
  CHECK(id_before("a-9", "b-1"));
  CHECK(id_before("a", "a-1"));
  CHECK_FALSE(id_before("a-1", "a-1"));
  CHECK(id_before("a-1", "a-01")); // equal numbers still differ
  CHECK_FALSE(id_before("a-01", "a-1"));
  CHECK(id_before("x-99999999999999999999998", "x-99999999999999999999999"));
  std::vector<std::string> ids{"n-10", "n-2", "n-1", "m-3", "n-100"};
  std::sort(ids.begin(), ids.end(), id_before);
  CHECK(ids == std::vector<std::string>{"m-3", "n-1", "n-2", "n-10", "n-100"});
}

TEST_CASE("GET /tasks parameters: filters, a page, bulk results, a tally",
          "[http_api]") {
  std::string err;
  auto r = parse_task_list({{"state", "done"}, {"kind", "cpu"}, {"node", "b"},
                            {"limit", "50"}, {"after", "a-7"}},
                           err);
  REQUIRE(r);
  CHECK(r->query.phase == wire::DONE);
  CHECK(r->query.kind == "cpu");
  CHECK(r->query.node == "b");
  CHECK(r->query.after == "a-7");
  CHECK(r->query.limit == 51u); // one more, to tell whether a page follows
  r = parse_task_list({{"ids", "a-1,a-2"}, {"with", "result"}}, err);
  REQUIRE(r);
  CHECK(r->with_result);
  CHECK(r->query.ids == std::vector<std::string>{"a-1", "a-2"});
}

TEST_CASE("GET /tasks refuses what it would otherwise ignore", "[http_api]") {
  CHECK(refusal({{"limt", "5"}})
        == "unknown parameter 'limt' (known: state, kind, node, workflow, limit, after, "
           "ids, with, group)");
  CHECK(refusal({{"limit", "0"}}) == "limit must be an integer from 1 to 10000");
  CHECK(refusal({{"limit", "-1"}}) == "limit must be an integer from 1 to 10000");
  CHECK(refusal({{"limit", "5x"}}) == "limit must be an integer from 1 to 10000");
  CHECK(refusal({{"limit", "10001"}}) == "limit must be an integer from 1 to 10000");
  CHECK(refusal({{"limit", "99999999999999999999999"}})
        == "limit must be an integer from 1 to 10000");
  CHECK(refusal({{"state", "finished"}}).rfind("state must be one of", 0) == 0);
  CHECK(refusal({{"kind", ""}}) == "kind must not be empty");
  CHECK(refusal({{"with", "payload"}}) == "with must be 'result'");
  CHECK(refusal({{"group", "kind"}}) == "group must be 'node'");
  CHECK(refusal({{"ids", "a-1"}, {"limit", "5"}})
        == "limit and after page through the whole list; not with ids");
  CHECK(refusal({{"kind", "a"}, {"kind", "b"}}) == "parameter 'kind' given more than once");
  CHECK(refusal({{"ids", ","}})
        == "ids must name at least one task id (comma-separated)");
}

TEST_CASE("a full page names the id to continue after, the last page does "
          "not", "[http_api]") {
  std::string err;
  auto r = parse_task_list({{"limit", "2"}}, err);
  REQUIRE(r);
  auto body = task_list_json({row("a-1", wire::READY), row("a-2", wire::DONE),
                              row("a-3", wire::READY)},
                             *r);
  CHECK(body["tasks"].size() == 2);
  CHECK(body["next_after"] == "a-2");
  CHECK_FALSE(body["tasks"][1].contains("result"));
  body = task_list_json({row("a-3", wire::READY)}, *r);
  CHECK(body["tasks"].size() == 1);
  CHECK_FALSE(body.contains("next_after"));
}

TEST_CASE("with=result brings each done task's result, group=node counts "
          "per executing node", "[http_api]") {
  std::string err;
  auto r = parse_task_list({{"with", "result"}}, err);
  REQUIRE(r);
  auto body = task_list_json({row("a-1", wire::DONE, "b"), row("a-2", wire::READY)}, *r);
  CHECK(body["tasks"][0]["result"] == "slept a-1");
  CHECK_FALSE(body["tasks"][1].contains("result"));
  r = parse_task_list({{"group", "node"}}, err);
  REQUIRE(r);
  body = task_list_json({row("a-1", wire::DONE, "b"), row("a-2", wire::DONE, "b"),
                         row("a-3", wire::DONE, "c"), row("a-4", wire::READY)},
                        *r);
  CHECK(body["total"] == 4);
  CHECK(body["by_node"]["b"] == 2);
  CHECK(body["by_node"]["c"] == 1);
  CHECK(body["unclaimed"] == 1);
}

TEST_CASE("a page limit is an integer from 1 to the route's most", "[http]") {
  CHECK(dice::parse_page_limit("1", 20) == std::optional<std::size_t>{1});
  CHECK(dice::parse_page_limit("20", 20) == std::optional<std::size_t>{20});
  for (const char* bad : {"0", "21", "-1", "", "5x", "99999999999999999999999"})
    CHECK_FALSE(dice::parse_page_limit(bad, 20));
}

TEST_CASE("GET /tasks/{id} takes wait_ms from 0 to 30000 and nothing else",
          "[http][task_list]") {
  std::string err;
  CHECK(parse_task_wait({}, err) == 0);
  CHECK(parse_task_wait({{"wait_ms", "0"}}, err) == 0);
  CHECK(parse_task_wait({{"wait_ms", "250"}}, err) == 250);
  CHECK(parse_task_wait({{"wait_ms", "30000"}}, err) == 30'000);
  for (const params& bad :
       {params{{"wait_ms", "30001"}}, params{{"wait_ms", "-5"}},
        params{{"wait_ms", ""}}, params{{"wait_ms", "5s"}},
        params{{"wait_ms", "1"}, {"wait_ms", "2"}}}) {
    err.clear();
    CHECK_FALSE(parse_task_wait(bad, err));
    CHECK(err == "wait_ms must be given once, an integer from 0 to 30000");
  }
  err.clear();
  CHECK_FALSE(parse_task_wait({{"with", "result"}}, err));
  CHECK(err == "unknown parameter 'with' (known: wait_ms)");
}
