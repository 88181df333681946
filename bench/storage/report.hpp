#pragma once
// Results as CSV rows (scenario, store, sync, param, metric, value), echoed
// to stdout as they come.
#include <cstdio>
#include <string>

namespace bench {

class report {
public:
  explicit report(const std::string& csv_path);
  ~report();
  void row(const std::string& scenario, const std::string& store,
           const std::string& sync, const std::string& param,
           const std::string& metric, double value);

private:
  std::FILE* csv_ = nullptr;
};

} // namespace bench
