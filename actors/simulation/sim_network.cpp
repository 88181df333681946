#include "simulation/sim_network.hpp"

#include <stdexcept>

namespace dice {

namespace {

void check_probability(const char* name, double p) {
  // Written so that NaN fails too.
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument(std::string("link_faults: ") + name
                                + " must be a probability in [0,1], got "
                                + std::to_string(p));
}

void validate(const link_faults& f) {
  check_probability("loss", f.loss);
  check_probability("duplicate", f.duplicate);
  if (f.min_delay < 0)
    throw std::invalid_argument("link_faults: min_delay must be >= 0 ms, got "
                                + std::to_string(f.min_delay));
  if (f.min_delay > f.max_delay)
    throw std::invalid_argument("link_faults: min_delay ("
                                + std::to_string(f.min_delay)
                                + " ms) exceeds max_delay ("
                                + std::to_string(f.max_delay) + " ms)");
}

} // namespace

sim_network::sim_network(std::uint64_t seed) : rng_(seed) {
}

void sim_network::set_default_faults(link_faults f) {
  validate(f);
  default_faults_ = f;
}

void sim_network::set_link_faults(const std::string& from,
                                  const std::string& to, link_faults f) {
  validate(f);
  link_faults_[{from, to}] = f;
}

void sim_network::attach(const std::string& addr) {
  up_.emplace(addr, true);
}

void sim_network::crash(const std::string& addr) {
  auto i = up_.find(addr);
  if (i == up_.end())
    throw std::invalid_argument("sim_network: cannot crash unknown node "
                                + addr);
  i->second = false;
  // Drop its inbound datagrams now, so a restart cannot bring them back.
  for (auto j = pending_.begin(); j != pending_.end();) {
    if (j->second.to == addr) {
      j = pending_.erase(j);
      ++counters_.dropped_crash;
    } else {
      ++j;
    }
  }
}

void sim_network::restart(const std::string& addr) {
  auto i = up_.find(addr);
  if (i == up_.end())
    throw std::invalid_argument("sim_network: cannot restart unknown node "
                                + addr);
  i->second = true;
}

bool sim_network::is_up(const std::string& addr) const {
  auto i = up_.find(addr);
  return i != up_.end() && i->second;
}

std::vector<std::string> sim_network::nodes() const {
  std::vector<std::string> result;
  for (const auto& [addr, up] : up_)
    result.push_back(addr);
  return result;
}

void sim_network::partition(
  const std::vector<std::vector<std::string>>& groups) {
  std::map<std::string, int> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const auto& addr : groups[g])
      if (!group_of.emplace(addr, static_cast<int>(g)).second
          && group_of[addr] != static_cast<int>(g))
        throw std::invalid_argument("sim_network: node " + addr
                                    + " is listed in two partition groups");
  group_of_ = std::move(group_of);
  partitioned_ = true;
}

void sim_network::heal() {
  group_of_.clear();
  partitioned_ = false;
}

void sim_network::send(millis now, const std::string& from,
                       const std::string& to, std::string bytes) {
  ++counters_.sent;
  if (!is_up(from) || !is_up(to)) {
    ++counters_.dropped_crash;
    return;
  }
  if (!can_talk(from, to)) {
    ++counters_.dropped_partition;
    return;
  }
  const auto& f = faults_of(from, to);
  if (chance(f.loss)) {
    ++counters_.dropped_loss;
    return;
  }
  schedule(now, f, from, to, bytes);
  if (chance(f.duplicate)) {
    ++counters_.duplicated;
    schedule(now, f, from, to, bytes);
  }
}

void sim_network::broadcast(millis now, const std::string& from,
                            const std::string& bytes) {
  for (const auto& [addr, up] : up_)
    if (addr != from)
      send(now, from, addr, bytes);
}

std::optional<millis> sim_network::next_time() const {
  if (pending_.empty())
    return std::nullopt;
  return pending_.begin()->first.first;
}

std::optional<sim_delivery> sim_network::pop_due(millis now) {
  while (!pending_.empty() && pending_.begin()->first.first <= now) {
    auto d = std::move(pending_.begin()->second);
    pending_.erase(pending_.begin());
    // The sender may crash after sending: its datagram is on the wire anyway.
    if (!is_up(d.to)) {
      ++counters_.dropped_crash;
    } else if (!can_talk(d.from, d.to)) {
      ++counters_.dropped_partition;
    } else {
      ++counters_.delivered;
      return d;
    }
  }
  return std::nullopt;
}

const link_faults& sim_network::faults_of(const std::string& from,
                                          const std::string& to) const {
  auto i = link_faults_.find({from, to});
  return i != link_faults_.end() ? i->second : default_faults_;
}

bool sim_network::can_talk(const std::string& from,
                           const std::string& to) const {
  if (!partitioned_)
    return true;
  auto group = [this](const std::string& addr) {
    auto i = group_of_.find(addr);
    return i != group_of_.end() ? i->second : -1;
  };
  return group(from) == group(to);
}

void sim_network::schedule(millis now, const link_faults& f,
                           const std::string& from, const std::string& to,
                           const std::string& bytes) {
  auto at = now + draw_delay(f);
  pending_.emplace(std::make_pair(at, next_seq_++),
                   sim_delivery{at, from, to, bytes});
}

// Draws are computed from raw generator output rather than with <random>
// distributions, whose results differ between standard libraries: a seed
// then reproduces the same run on every platform.
bool sim_network::chance(double p) {
  // 53 random bits -> uniform double in [0,1); p == 1 always hits.
  auto u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  return u < p;
}

millis sim_network::draw_delay(const link_faults& f) {
  auto span = static_cast<std::uint64_t>(f.max_delay - f.min_delay) + 1;
  // Modulo bias is below span / 2^64: negligible for any realistic delay.
  return f.min_delay + static_cast<millis>(rng_() % span);
}

} // namespace dice
