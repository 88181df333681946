#pragma once
// A seeded, in-process stand-in for the UDP network, for cluster tests. It
// drops, duplicates, delays (and so reorders) datagrams, partitions nodes and
// crashes them. Time is passed in and all randomness comes from one seeded
// generator, so the same seed and the same calls give the same deliveries.
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/time.hpp"

namespace dice {

/// Faults of one directed link. Probabilities are in [0,1]; each datagram is
/// delayed by a uniform draw from [min_delay, max_delay] ms.
struct link_faults {
  double loss = 0;
  double duplicate = 0;
  millis min_delay = 1;
  millis max_delay = 1;
};

/// A datagram handed to its receiver.
struct sim_delivery {
  millis at;
  std::string from, to, bytes;
};

/// Every datagram (and every extra copy) ends up in exactly one bucket:
/// sent + duplicated == delivered + dropped_* + in_flight().
struct sim_counters {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::uint64_t dropped_loss = 0;
  std::uint64_t dropped_partition = 0;
  std::uint64_t dropped_crash = 0;
  std::uint64_t duplicated = 0;
};

class sim_network {
public:
  explicit sim_network(std::uint64_t seed);

  /// Faults for every link without an override. Throws std::invalid_argument.
  void set_default_faults(link_faults f);
  /// Override for the directed link from -> to. Throws std::invalid_argument.
  void set_link_faults(const std::string& from, const std::string& to,
                       link_faults f);

  /// The node exists and is up (no-op if already attached).
  void attach(const std::string& addr);
  /// Node down: its in-flight inbound datagrams are lost (counted as
  /// dropped_crash now) and it sends and receives nothing. Datagrams it sent
  /// before crashing are already on the wire and still arrive.
  void crash(const std::string& addr);
  /// Up again; datagrams lost by the crash do not come back.
  void restart(const std::string& addr);
  bool is_up(const std::string& addr) const;
  /// Attached nodes, sorted.
  std::vector<std::string> nodes() const;
  /// True if `addr` was attached (up or down): O(log N), unlike nodes().
  bool attached(const std::string& addr) const { return up_.count(addr) > 0; }

  /// Nodes in different groups cannot talk. Attached nodes not listed (now
  /// or attached later) form one extra group together. Replaces any earlier
  /// partition. Throws std::invalid_argument if a node is in two groups.
  void partition(const std::vector<std::vector<std::string>>& groups);
  void heal();

  void send(millis now, const std::string& from, const std::string& to,
            std::string bytes);
  /// To every attached node except `from`; each link drawn independently.
  void broadcast(millis now, const std::string& from, const std::string& bytes);

  /// Earliest pending delivery time.
  std::optional<millis> next_time() const;
  /// The earliest pending datagram with at <= now (ties in send order).
  /// Partition and receiver crash are checked again here: such datagrams are
  /// dropped and counted instead of delivered.
  std::optional<sim_delivery> pop_due(millis now);

  std::size_t in_flight() const { return pending_.size(); }
  const sim_counters& counters() const { return counters_; }

private:
  const link_faults& faults_of(const std::string& from,
                               const std::string& to) const;
  bool can_talk(const std::string& from, const std::string& to) const;
  void schedule(millis now, const link_faults& f, const std::string& from,
                const std::string& to, const std::string& bytes);
  bool chance(double p);
  millis draw_delay(const link_faults& f);

  std::mt19937_64 rng_;
  link_faults default_faults_;
  std::map<std::pair<std::string, std::string>, link_faults> link_faults_;
  std::map<std::string, bool> up_; // attached nodes -> up?
  bool partitioned_ = false;
  std::map<std::string, int> group_of_; // listed nodes; others are group -1
  // Keyed by (delivery time, send sequence): iteration order is pop order.
  std::map<std::pair<millis, std::uint64_t>, sim_delivery> pending_;
  std::uint64_t next_seq_ = 0;
  sim_counters counters_;
};

} // namespace dice
