#include "tester/tester_peers.hpp"

namespace dice {

void tester_peers::heard(const std::string& id, const std::string& http, bool tls,
                         bool runs_tests, millis now) {
  std::lock_guard<std::mutex> guard{mtx_};
  peers_[id] = tester_peer{id, http, tls, runs_tests, now};
}

std::vector<tester_peer> tester_peers::live(millis now) const {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<tester_peer> out;
  for (auto& [id, p] : peers_)
    if (now - p.last_heard_ms <= forget_after_ms_)
      out.push_back(p);
  return out;
}

std::vector<std::string> tester_peers::sources(millis now) const {
  std::vector<std::string> out;
  for (auto& p : live(now))
    out.push_back(p.url());
  return out;
}

bool tester_peers::find(const std::string& id, millis now, tester_peer& out) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = peers_.find(id);
  if (it == peers_.end() || now - it->second.last_heard_ms > forget_after_ms_)
    return false;
  out = it->second;
  return true;
}

} // namespace dice
