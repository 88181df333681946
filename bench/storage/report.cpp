#include "report.hpp"

#include <stdexcept>

namespace bench {

report::report(const std::string& csv_path) {
  csv_ = std::fopen(csv_path.c_str(), "w");
  if (!csv_)
    throw std::runtime_error("cannot write " + csv_path);
  std::fprintf(csv_, "scenario,store,sync,param,metric,value\n");
}

report::~report() { std::fclose(csv_); }

void report::row(const std::string& scenario, const std::string& store,
                 const std::string& sync, const std::string& param,
                 const std::string& metric, double value) {
  std::fprintf(csv_, "%s,%s,%s,%s,%s,%.6g\n", scenario.c_str(), store.c_str(),
               sync.c_str(), param.c_str(), metric.c_str(), value);
  std::fflush(csv_);
  std::printf("%-8s %-8s %-7s %-12s %-28s %14.6g\n", scenario.c_str(),
              store.c_str(), sync.c_str(), param.c_str(), metric.c_str(), value);
  std::fflush(stdout);
}

} // namespace bench
