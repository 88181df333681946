#pragma once
// How datagrams leave and enter a node. Three implementations: UDP unicast
// fan-out to known peers, an IPv4 multicast group, and the simulated network.
#include <functional>
#include <string>
#include <vector>

namespace dice {

/// A datagram received, with the sender's HOST:PORT.
struct datagram {
  std::string bytes;
  std::string from;
};

class transport {
public:
  /// Called with the datagrams received. A burst that queued up while the
  /// receiver was not running comes in one call, so it wakes the node once
  /// (on a busy host each wake-up costs more than handling a datagram).
  using receive_handler = std::function<void(std::vector<datagram>)>;

  virtual ~transport() = default;

  virtual void start(receive_handler on_datagram) = 0;
  virtual void stop() = 0;

  /// Point-to-point; false if the datagram could not be handed to the network.
  virtual bool send_to(const std::string& addr, const std::string& bytes) = 0;

  /// To everyone: one datagram per target, or one to the multicast group.
  /// Returns how many datagrams were handed to the network.
  virtual std::size_t broadcast(const std::vector<std::string>& targets,
                                const std::string& bytes) = 0;

  /// Several datagrams to everyone, each to every target before the next
  /// one. Returns, per datagram, how many were handed to the network.
  virtual std::vector<std::size_t>
  broadcast_all(const std::vector<std::string>& targets,
                const std::vector<std::string>& datagrams) {
    std::vector<std::size_t> sent;
    sent.reserve(datagrams.size());
    for (const auto& bytes : datagrams)
      sent.push_back(broadcast(targets, bytes));
    return sent;
  }
};

} // namespace dice
