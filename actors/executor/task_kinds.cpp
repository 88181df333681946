#include "executor/task_kinds.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

namespace dice {

namespace {

/// Parses a whole non-negative decimal number no larger than `max`.
bool parse_count(const std::string& text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.size() > 19
      || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = std::stoull(text);
  return out <= max;
}

} // namespace

task_kinds task_kinds::with_builtins() {
  task_kinds k;
  k.add("sleep", run_sleep);
  k.add("cpu", run_cpu);
  k.add("echo", run_echo);
  return k;
}

void task_kinds::add(const std::string& kind, task_function fn) {
  kinds_[kind] = [fn = std::move(fn)](const execution_request& req,
                                      const cancel_token& cancel) {
    return fn(req.payload, cancel);
  };
}

void task_kinds::add(const std::string& kind, request_function fn) {
  kinds_[kind] = std::move(fn);
}

const request_function* task_kinds::find(const std::string& kind) const {
  auto it = kinds_.find(kind);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<std::string> task_kinds::names() const {
  std::vector<std::string> out;
  for (auto& [name, fn] : kinds_)
    out.push_back(name);
  return out;
}

std::string builtin_payload_problem(const std::string& kind,
                                    const std::string& payload) {
  std::uint64_t n = 0;
  if (kind == "sleep" && !parse_count(payload, 3'600'000, n))
    return "sleep: payload must be milliseconds from 0 to 3600000, got '"
           + payload.substr(0, 32) + "'";
  if (kind == "cpu" && (!parse_count(payload, 10'000'000'000ULL, n) || n == 0))
    return "cpu: payload must be an iteration count from 1 to 10^10, got '"
           + payload.substr(0, 32) + "'";
  return {};
}

task_outcome run_sleep(const std::string& payload, const cancel_token& cancel) {
  std::uint64_t ms = 0;
  if (auto why = builtin_payload_problem("sleep", payload); !why.empty())
    return task_outcome::invalid(why);
  parse_count(payload, 3'600'000, ms);
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  if (cancel.wait_until(end))
    return task_outcome::failure("canceled");
  return task_outcome::success("slept " + payload);
}

task_outcome run_cpu(const std::string& payload, const cancel_token& cancel) {
  std::uint64_t n = 0;
  if (auto why = builtin_payload_problem("cpu", payload); !why.empty())
    return task_outcome::invalid(why);
  parse_count(payload, 10'000'000'000ULL, n);
  // A splitmix64 chain: cheap, deterministic, impossible to skip ahead.
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (std::uint64_t i = 0; i < n; ++i) {
    x += 0x9e3779b97f4a7c15ULL;
    auto z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    x ^= z ^ (z >> 31);
    if ((i & 0xFFFFF) == 0 && cancel.canceled())
      return task_outcome::failure("canceled");
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(x));
  return task_outcome::success(hex);
}

task_outcome run_echo(const std::string& payload, const cancel_token&) {
  return task_outcome::success(payload);
}

} // namespace dice
