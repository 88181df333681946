#include "metrics/http_metrics.hpp"

#include <chrono>
#include <optional>

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace dice {

std::string route_label(const std::string& path) {
  static const char* fixed[] = {"/", "/health", "/nodes", "/stats", "/election",
                                "/metrics", "/tasks", "/ui"};
  for (auto* f : fixed)
    if (path == f)
      return path;
  if (path.rfind("/ui/", 0) == 0)
    return "/ui/{file}";
  if (path.rfind("/tasks/", 0) == 0) {
    auto rest = path.substr(7);
    auto slash = rest.find('/');
    if (slash == std::string::npos && !rest.empty())
      return "/tasks/{id}";
    if (slash != std::string::npos && rest.substr(slash) == "/cancel")
      return "/tasks/{id}/cancel";
  }
  return "other";
}

std::vector<double> http_latency_buckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,  0.5,    1,     2.5,  5,     10};
}

http_metrics::http_metrics()
  : registry_(std::make_shared<prometheus::Registry>()),
    requests_(&prometheus::BuildCounter()
                 .Name("dice_http_requests_total")
                 .Help("HTTP requests answered, by route, method and status")
                 .Register(*registry_)),
    latency_(&prometheus::BuildHistogram()
                .Name("dice_http_request_duration_seconds")
                .Help("Time from a request's arrival to its answer, by "
                      "route and method")
                .Register(*registry_)),
    submitted_(&prometheus::BuildCounter()
                  .Name("dice_tasks_submitted_total")
                  .Help("Tasks taken by this node's POST /tasks")
                  .Register(*registry_)
                  .Add({})) {
}

http_metrics::~http_metrics() = default;

namespace {

using steady = std::chrono::steady_clock;
thread_local std::optional<steady::time_point> request_start;

} // namespace

void http_metrics::start_request() {
  request_start = steady::now();
}

void http_metrics::answered(const std::string& method, const std::string& path,
                            int status) {
  std::optional<double> seconds;
  if (request_start)
    seconds = std::chrono::duration<double>(steady::now() - *request_start).count();
  request_start.reset();
  observe(method, path, status, seconds);
}

void http_metrics::observe(const std::string& method, const std::string& path,
                           int status, std::optional<double> seconds) {
  auto route = route_label(path);
  static const char* methods[] = {"GET", "POST", "DELETE", "PUT", "HEAD",
                                  "OPTIONS", "PATCH"};
  std::string m = "other"; // a client's method must not add labels
  for (auto* k : methods)
    if (method == k)
      m = k;
  requests_
    ->Add({{"route", route}, {"method", m}, {"code", std::to_string(status)}})
    .Increment();
  if (seconds)
    latency_->Add({{"route", route}, {"method", m}}, http_latency_buckets())
      .Observe(*seconds);
}

void http_metrics::submitted(std::size_t tasks) {
  submitted_->Increment(static_cast<double>(tasks));
}

std::vector<prometheus::MetricFamily> http_metrics::collect() const {
  return registry_->Collect();
}

} // namespace dice
