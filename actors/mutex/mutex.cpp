#include "mutex/mutex.hpp"

#include <algorithm>
#include <stdexcept>

#include "mutex/central.hpp"
#include "mutex/ricart_agrawala.hpp"
#include "mutex/token_ring.hpp"
#include "mutex/voting.hpp"

namespace dice {

std::string mutex_config::problem() const {
  if (retry_ms <= 0)
    return "mutex retry interval must be positive";
  if (lease_ms <= retry_ms)
    return "mutex lease must exceed the retry interval";
  if (reclaim_ms <= lease_ms)
    return "mutex reclaim time must exceed the lease (the holder must let go first)";
  if (token_hop_ms < 0)
    return "mutex token hop must not be negative";
  if (token_loss_ms <= retry_ms)
    return "mutex token loss timeout must exceed the retry interval";
  return {};
}

mutex_state::mutex_state(std::string algorithm, std::string self_id,
                         mutex_config cfg)
  : algorithm_(std::move(algorithm)),
    self_(std::move(self_id)),
    cfg_(cfg),
    live_{self_},
    next_request_(cfg.request_base) {
  if (self_.empty())
    throw std::invalid_argument("mutex: empty node id");
  if (auto p = cfg_.problem(); !p.empty())
    throw std::invalid_argument("mutex: " + p);
}

void mutex_state::on_view(std::vector<std::string> live, millis) {
  live.push_back(self_);
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  live_ = std::move(live);
}

std::optional<millis> mutex_state::next_deadline() const {
  return wake_;
}

std::vector<lock_info> mutex_state::locks() const {
  std::vector<lock_info> out;
  for (const auto& r : wanted_) {
    lock_info l{r, holds(r) ? self_ : std::string{}, {}};
    if (!holds(r))
      l.waiters.push_back(self_);
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<mutex_send> mutex_state::take_outbox() {
  std::vector<mutex_send> out;
  out.swap(outbox_);
  return out;
}

std::vector<std::string> mutex_state::take_granted() {
  std::vector<std::string> out;
  out.swap(granted_);
  return out;
}

std::vector<std::string> mutex_state::take_lost() {
  std::vector<std::string> out;
  out.swap(lost_);
  return out;
}

wire::Mutex mutex_state::make(const char* kind, const std::string& r) const {
  wire::Mutex m;
  m.set_algorithm(algorithm_);
  m.set_kind(kind);
  m.set_resource(r);
  return m;
}

void mutex_state::send(const std::string& to, wire::Mutex m) {
  if (to == self_)
    return;
  outbox_.push_back({to, std::move(m)});
}

void mutex_state::broadcast(wire::Mutex m) {
  if (live_.size() > 1)
    outbox_.push_back({std::string{}, std::move(m)});
}

void mutex_state::enter(const std::string& r) {
  if (held_.insert(r).second)
    granted_.push_back(r);
}

void mutex_state::lose(const std::string& r) {
  if (held_.erase(r) > 0)
    lost_.push_back(r);
}

bool mutex_state::accept(const wire::Mutex& m) {
  if (m.algorithm() != algorithm_ || m.kind().empty()) {
    ++ignored_;
    return false;
  }
  return true;
}

bool mutex_state::is_live(const std::string& id) const {
  return std::binary_search(live_.begin(), live_.end(), id);
}

void mutex_state::wake_at(millis t) {
  if (!wake_ || t < *wake_)
    wake_ = t;
}

const std::vector<std::string>& mutex_algorithms() {
  static const std::vector<std::string> names{"central", "voting",
                                              "ricart-agrawala", "token-ring"};
  return names;
}

std::unique_ptr<mutex_state> make_mutex(const std::string& algorithm,
                                        std::string self_id, mutex_config cfg) {
  if (algorithm == "central")
    return std::make_unique<central_mutex>(std::move(self_id), cfg);
  if (algorithm == "voting")
    return std::make_unique<voting_mutex>(std::move(self_id), cfg);
  if (algorithm == "ricart-agrawala")
    return std::make_unique<ricart_agrawala_mutex>(std::move(self_id), cfg);
  if (algorithm == "token-ring")
    return std::make_unique<token_ring_mutex>(std::move(self_id), cfg);
  std::string names;
  for (const auto& n : mutex_algorithms())
    names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown mutex algorithm '" + algorithm
                              + "' (known: " + names + ")");
}

} // namespace dice
