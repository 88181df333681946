#include <catch2/catch.hpp>

#include "metrics/http_metrics.hpp"
#include "metrics/node_metrics.hpp"

using namespace dice;

TEST_CASE("routes become few labels: task ids and unknown paths fold",
          "[metrics]") {
  CHECK(route_label("/stats") == "/stats");
  CHECK(route_label("/tasks") == "/tasks");
  CHECK(route_label("/tasks/a-17") == "/tasks/{id}");
  CHECK(route_label("/tasks/a-17/cancel") == "/tasks/{id}/cancel");
  CHECK(route_label("/tasks/a-17/other") == "other");
  CHECK(route_label("/tasks/") == "other");
  CHECK(route_label("/ui/dashboard.js") == "/ui/{file}");
  CHECK(route_label("/../etc/passwd") == "other");
}

TEST_CASE("requests are counted by route, method and status, and timed in "
          "a histogram", "[metrics]") {
  http_metrics m;
  m.observe("GET", "/tasks/a-1", 200, 0.002);
  m.observe("GET", "/tasks/a-2", 200, 0.3);
  m.observe("GET", "/tasks/zz", 404, 0.0001);
  m.observe("BREW", "/x", 405, std::nullopt); // counted, not timed
  m.submitted(64);
  auto text = exposition_text(m.collect());
  INFO(text);
  auto has = [&](const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
  };
  CHECK(has(R"(dice_http_requests_total{code="200",method="GET",route="/tasks/{id}"} 2)"));
  CHECK(has(R"(dice_http_requests_total{code="404",method="GET",route="/tasks/{id}"} 1)"));
  CHECK(has(R"(dice_http_requests_total{code="405",method="other",route="other"} 1)"));
  CHECK(has(R"(dice_http_request_duration_seconds_count{method="GET",route="/tasks/{id}"} 3)"));
  CHECK(has(R"(dice_http_request_duration_seconds_bucket{method="GET",route="/tasks/{id}",le="0.0025"} 2)"));
  CHECK(has(R"(dice_http_request_duration_seconds_bucket{method="GET",route="/tasks/{id}",le="+Inf"} 3)"));
  CHECK(text.find(R"(route="other",le=)") == std::string::npos);
  CHECK(has("dice_tasks_submitted_total 64"));
}

TEST_CASE("a request's time is taken on its own thread, from its start to "
          "its answer", "[metrics]") {
  http_metrics m;
  m.answered("GET", "/health", 200); // no start seen: counted only
  m.start_request();
  m.answered("GET", "/health", 200);
  auto text = exposition_text(m.collect());
  CHECK(text.find(R"(dice_http_requests_total{code="200",method="GET",route="/health"} 2)")
        != std::string::npos);
  CHECK(text.find(R"(dice_http_request_duration_seconds_count{method="GET",route="/health"} 1)")
        != std::string::npos);
}
