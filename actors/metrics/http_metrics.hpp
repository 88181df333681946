#pragma once
// The HTTP API's requests as Prometheus metrics: a count per route, method
// and status, and a latency histogram per route and method. Thread-safe
// (the server's threads observe, a scrape collects); no CAF, no server.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

namespace prometheus {
class Registry;
class Counter;
class Histogram;
template <typename T> class Family;
} // namespace prometheus

namespace dice {

/// The route a path belongs to, so labels stay few: "/tasks/{id}" for any
/// task id, "other" for anything unrouted.
std::string route_label(const std::string& path);

/// Upper bounds (seconds) of the latency buckets: from a lookup answered
/// from memory (under a millisecond) to the 5 s ask timeout and beyond.
std::vector<double> http_latency_buckets();

class http_metrics {
public:
  http_metrics();
  ~http_metrics();

  /// A request has arrived (its time is kept per server thread, which
  /// serves it to the end).
  void start_request();
  /// A request was answered: counted, and timed from start_request on
  /// this thread (one refused before routing, e.g. 413, is only counted).
  void answered(const std::string& method, const std::string& path,
                int status);
  /// One answered request, with the time it took if known.
  void observe(const std::string& method, const std::string& path,
               int status, std::optional<double> seconds);
  /// Tasks taken by POST /tasks.
  void submitted(std::size_t tasks);

  std::vector<prometheus::MetricFamily> collect() const;

private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* latency_;
  prometheus::Counter* submitted_;
};

} // namespace dice
