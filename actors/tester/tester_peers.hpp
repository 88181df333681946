#pragma once
// Where the other nodes serve project blobs, as their TesterHello
// messages tell: node id -> HTTP HOST:PORT (and whether it is HTTPS),
// forgotten after a silence.
// The tester actor is its only writer; HTTP threads and executor slots
// read it (hence the lock).
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/time.hpp"

namespace dice {

/// A node's API base URL from its HTTP HOST:PORT: http://HOST:PORT, or
/// https://HOST:PORT when it speaks TLS.
inline std::string api_url(const std::string& http, bool tls) {
  return (tls ? "https://" : "http://") + http;
}

struct tester_peer {
  std::string id;
  std::string http; // HOST:PORT
  bool tls = false; // its API speaks HTTPS only
  bool runs_tests = false;
  millis last_heard_ms = 0;

  /// Its API's base URL: http://HOST:PORT or https://HOST:PORT.
  std::string url() const { return api_url(http, tls); }
};

class tester_peers {
public:
  /// Entries not heard from for `forget_after_ms` are left out of answers.
  explicit tester_peers(millis forget_after_ms) : forget_after_ms_(forget_after_ms) {}

  void heard(const std::string& id, const std::string& http, bool tls,
             bool runs_tests, millis now);
  /// The live entries, sorted by id.
  std::vector<tester_peer> live(millis now) const;
  /// Their APIs' base URLs, sorted by node id.
  std::vector<std::string> sources(millis now) const;
  /// The live entry of `id`, if any.
  bool find(const std::string& id, millis now, tester_peer& out) const;

private:
  millis forget_after_ms_;
  mutable std::mutex mtx_;
  std::map<std::string, tester_peer> peers_;
};

} // namespace dice
