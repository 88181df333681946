#include "simulation/sim_transport.hpp"

#include <algorithm>
#include <utility>

namespace dice {

// -- sim_hub ------------------------------------------------------------------

sim_hub::sim_hub(std::uint64_t seed) : net_(seed) {
}

std::shared_ptr<transport> sim_hub::make_transport(const std::string& addr) {
  net_.attach(addr);
  return std::make_shared<sim_transport>(*this, addr);
}

std::size_t sim_hub::deliver_due(millis at) {
  now = std::max(now, at);
  std::size_t delivered = 0;
  while (auto d = net_.pop_due(at)) {
    auto i = receivers_.find(d->to);
    if (i == receivers_.end()) {
      ++undeliverable_;
      continue;
    }
    // A copy: the handler may start or stop transports, which edits the map.
    auto handler = i->second.handler;
    std::vector<datagram> one;
    one.push_back({std::move(d->bytes), std::move(d->from)});
    handler(std::move(one));
    ++delivered;
  }
  return delivered;
}

std::uint64_t sim_hub::listen(const std::string& addr,
                              transport::receive_handler handler) {
  auto token = next_token_++;
  receivers_[addr] = receiver{token, std::move(handler)};
  return token;
}

void sim_hub::unlisten(const std::string& addr, std::uint64_t token) {
  auto i = receivers_.find(addr);
  if (i != receivers_.end() && i->second.token == token)
    receivers_.erase(i);
}

// -- sim_transport --------------------------------------------------------------

sim_transport::sim_transport(sim_hub& hub, std::string addr)
  : hub_(hub), addr_(std::move(addr)) {
}

sim_transport::~sim_transport() {
  stop();
}

void sim_transport::start(receive_handler on_datagram) {
  token_ = hub_.listen(addr_, std::move(on_datagram));
}

void sim_transport::stop() {
  if (token_ != 0)
    hub_.unlisten(addr_, token_);
  token_ = 0;
}

bool sim_transport::send_to(const std::string& addr, const std::string& bytes) {
  if (!hub_.net_.attached(addr))
    return false;
  hub_.net_.send(hub_.now, addr_, addr, bytes);
  return true;
}

std::size_t sim_transport::broadcast(const std::vector<std::string>& targets,
                                     const std::string& bytes) {
  if (hub_.multicast) {
    hub_.net_.broadcast(hub_.now, addr_, bytes);
    return 1;
  }
  std::size_t sent = 0;
  for (const auto& t : targets)
    sent += send_to(t, bytes) ? 1 : 0;
  return sent;
}

} // namespace dice
