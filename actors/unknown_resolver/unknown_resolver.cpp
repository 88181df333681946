#include "unknown_resolver/unknown_resolver.hpp"

#include <algorithm>

namespace dice {

unknown_resolver::unknown_resolver(resolver_config cfg) : cfg_(cfg) {
  cfg_.backoff_max_ms = std::max(cfg_.backoff_max_ms, cfg_.backoff_min_ms);
}

std::optional<unknown_resolver::ask>
unknown_resolver::unknown(const std::string& task_id, const std::string& witness,
                          millis now) {
  if (cfg_.strategy == resolve_strategy::never_want || cfg_.resolve_tries == 0)
    return std::nullopt;
  auto [i, added] = asking_.try_emplace(task_id);
  auto& w = i->second.witnesses;
  if (!witness.empty() && w.size() < max_witnesses
      && std::find(w.begin(), w.end(), witness) == w.end())
    w.push_back(witness);
  if (!added)
    return std::nullopt; // answers are on the way, or asks_due will retry
  if (cfg_.ask_delay_ms > 0) {
    i->second.next_at = now + cfg_.ask_delay_ms;
    return std::nullopt;
  }
  return next_try(task_id, i->second, now);
}

unknown_resolver::ask unknown_resolver::next_try(const std::string& task_id,
                                                 question& q, millis now) {
  ++q.tries;
  // The witnesses first, alone, in turn (a lost question or answer is the
  // usual reason for silence); everyone after (they died, or kept losing).
  if (q.tries <= cfg_.witness_tries + extra_tries_ && !q.witnesses.empty()) {
    q.next_at = now + cfg_.witness_window_ms;
    return {task_id, q.witnesses[(q.tries - 1) % q.witnesses.size()]};
  }
  q.next_at = now + cfg_.resolve_window_ms;
  return {task_id, {}};
}

void unknown_resolver::resolved(const std::string& task_id) {
  asking_.erase(task_id);
}

void unknown_resolver::cluster_size(std::size_t n) {
  extra_tries_ = cfg_.scale_witness_tries ? extra_witness_tries(n) : 0;
}

std::uint32_t unknown_resolver::extra_witness_tries(std::size_t n) {
  std::uint32_t extra = 0;
  for (std::size_t covered = 64; covered < n && extra < 16; covered *= 2)
    ++extra;
  return extra;
}

std::vector<unknown_resolver::ask> unknown_resolver::asks_due(millis now) {
  std::vector<ask> result;
  for (auto i = asking_.begin(); i != asking_.end();) {
    auto& q = i->second;
    if (q.next_at > now) {
      ++i;
      continue;
    }
    if (q.tries >= cfg_.resolve_tries + extra_tries_) {
      // Give up: anti-entropy brings the spec eventually.
      i = asking_.erase(i);
      continue;
    }
    result.push_back(next_try(i->first, q, now));
    ++i;
  }
  return result;
}

void unknown_resolver::asked(const std::string& task_id, millis now,
                             std::mt19937_64& rng) {
  if (answering_.count(task_id) > 0)
    return;
  auto span = static_cast<std::uint64_t>(cfg_.backoff_max_ms
                                         - cfg_.backoff_min_ms)
              + 1;
  // Raw draws, not <random> distributions, so a seed replays everywhere.
  auto wait = cfg_.backoff_min_ms + static_cast<millis>(rng() % span);
  answering_[task_id] = now + wait;
}

void unknown_resolver::answer_seen(const std::string& task_id) {
  if (answering_.erase(task_id) > 0)
    ++suppressed_;
  asking_.erase(task_id);
}

std::vector<std::string> unknown_resolver::answers_due(millis now) {
  std::vector<std::string> result;
  for (auto i = answering_.begin(); i != answering_.end();) {
    if (i->second <= now) {
      result.push_back(i->first);
      i = answering_.erase(i);
    } else {
      ++i;
    }
  }
  return result;
}

} // namespace dice
