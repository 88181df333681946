#pragma once
// The simulated network as a transport: N nodes in one process, each with a
// transport whose datagrams go through one seeded sim_network. The driver of
// the simulation owns the clock: it sets `now` before letting nodes send and
// calls deliver_due(now) to hand due datagrams to their receivers. Nothing
// here starts a thread or reads a clock.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simulation/sim_network.hpp"
#include "broadcast_bridge/transport.hpp"

namespace dice {

class sim_hub {
public:
  explicit sim_hub(std::uint64_t seed);

  sim_hub(const sim_hub&) = delete;
  sim_hub& operator=(const sim_hub&) = delete;

  /// A transport bound to `addr`, which is attached to the network if it
  /// was not yet (a crashed address stays down until network().restart()).
  /// A node that restarts on the same address gets a new transport; the old
  /// one stops receiving once the new one starts.
  std::shared_ptr<transport> make_transport(const std::string& addr);

  /// Pops every datagram due at or before `at` and hands each to the
  /// started receiver at its address (from = the sender's address).
  /// Returns how many were handed to a receiver; due datagrams for an
  /// address nobody listens on are counted in undeliverable(). Moves the
  /// `now` member forward to `at` first, so handlers that reply at once
  /// send at the time of delivery.
  std::size_t deliver_due(millis at);

  /// The simulated time that transports stamp their sends with.
  millis now = 0;

  /// An IPv4 multicast group (dice-node's --multicast): a broadcast leaves
  /// its sender as one datagram, and every other node's copy is lost,
  /// duplicated and delayed on its own link, as a LAN switch delivers it.
  /// Off: a broadcast is one unicast datagram per target, as without one.
  bool multicast = false;

  sim_network& network() { return net_; }
  const sim_network& network() const { return net_; }

  /// Due datagrams whose address had no started receiver.
  std::uint64_t undeliverable() const { return undeliverable_; }

private:
  friend class sim_transport;

  // The transport currently receiving at an address; a token (not a
  // pointer to the transport) so a stale stop() cannot remove a successor.
  struct receiver {
    std::uint64_t token = 0;
    transport::receive_handler handler;
  };

  std::uint64_t listen(const std::string& addr,
                       transport::receive_handler handler);
  void unlisten(const std::string& addr, std::uint64_t token);

  sim_network net_;
  std::map<std::string, receiver> receivers_;
  std::uint64_t next_token_ = 1;
  std::uint64_t undeliverable_ = 0;
};

/// One node's end of the simulated network. It refers to its hub, which
/// must outlive it.
class sim_transport : public transport {
public:
  sim_transport(sim_hub& hub, std::string addr);
  ~sim_transport() override;

  void start(receive_handler on_datagram) override;
  void stop() override;

  /// Like UDP: true once handed to the network, which says nothing about
  /// whether it arrives. False (and not sent) for an address that is not
  /// attached to the network: there is no such host.
  bool send_to(const std::string& addr, const std::string& bytes) override;

  /// UDP fan-out: one datagram per target, each link drawn independently.
  /// Returns how many targets were attached (and so handed a datagram).
  /// With the hub's multicast, one datagram to the group (every attached
  /// node, whatever the targets): returns 1.
  std::size_t broadcast(const std::vector<std::string>& targets,
                        const std::string& bytes) override;

  const std::string& addr() const { return addr_; }

private:
  sim_hub& hub_;
  std::string addr_;
  std::uint64_t token_ = 0; // 0: not receiving
};

} // namespace dice
