#include "node/node_config.hpp"

#include <algorithm>
#include <filesystem>

namespace dice {

endpoint node_config::advertised() const {
  if (advertise)
    return *advertise;
  // A wildcard listen address cannot be reached; loopback is the safe guess.
  if (listen.host == "0.0.0.0")
    return endpoint{"127.0.0.1", listen.port};
  return listen;
}

std::string node_config::keyring_file() const {
  return data_dir.empty() ? std::string{} : data_dir + "/keyring";
}

runner_capabilities node_config::runner() const {
  runner_capabilities r;
  r.kinds = kinds.names();
  std::sort(r.kinds.begin(), r.kinds.end());
  if (kinds.contains("shell"))
    r.shell_allow = shell.allow;
  return r;
}

std::string node_config::problem() const {
  if (id.empty())
    return "--id must not be empty";
  if (id.size() > 128)
    return "--id must be at most 128 characters";
  std::error_code ec;
  if (cluster_key.empty() && !insecure && !is_loopback(listen)
      && (keyring_file().empty() || !std::filesystem::exists(keyring_file(), ec)))
    return "listening on " + listen.to_string()
           + " without a cluster key: give --cluster-key-file, listen on "
             "127.0.0.1, or pass --insecure";
  if (http)
    if (auto p = api.problem(http->host); !p.empty())
      return p;
  if (multicast) {
    auto first = std::stoi(multicast->host.substr(0, multicast->host.find('.')));
    if (first < 224 || first > 239)
      return "--multicast " + multicast->to_string()
             + ": not an IPv4 multicast group (224.0.0.0 to 239.255.255.255)";
    // The group already carries each broadcast in one datagram; a relay
    // would only add hops.
    if (timing.super_peers.mode != super_peer_mode::off)
      return "--super-peers " + to_string(timing.super_peers)
             + " with --multicast: super-peers relay unicast broadcasts, the "
               "multicast group needs no relays (use --super-peers off)";
  }
  if (auto p = timing.problem(); !p.empty())
    return p;
  const auto& names = election_algorithms();
  if (std::find(names.begin(), names.end(), election_algorithm) == names.end())
    return "--election '" + election_algorithm
           + "': not one of bully, ring, hs, invitation, echo";
  if (auto p = election.problem(); !p.empty())
    return p;
  const auto& mutexes = mutex_algorithms();
  if (std::find(mutexes.begin(), mutexes.end(), mutex_algorithm) == mutexes.end())
    return "--mutex '" + mutex_algorithm
           + "': not one of central, voting, ricart-agrawala, token-ring";
  if (auto p = mutex.problem(); !p.empty())
    return p;
  if (task_lock_idle_ms <= queue.lock_recheck_ms)
    return "--lock-idle-ms must exceed --lock-recheck-ms (a waiting task's "
           "want would lapse between two looks)";
  if (queue.lock_recheck_ms <= 0)
    return "--lock-recheck-ms must be positive";
  if (causal.sync_ms <= 0)
    return "--event-sync-ms must be positive";
  if (causal.log_limit == 0)
    return "--event-log-limit must be positive";
  if (auto p = shell.problem(); !p.empty())
    return p;
  if (workers.lease_ms < 100 || workers.lease_ms > 3600000)
    return "--worker-lease-ms must be 100 to 3600000";
  if (auto p = tester.problem(); !p.empty())
    return p;
  return queue.problem();
}

} // namespace dice
