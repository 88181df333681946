#include "broadcast_bridge/udp_transport.hpp"

#include <algorithm>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace dice {

namespace {

sockaddr_in to_sockaddr(const endpoint& ep) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(ep.port);
  inet_pton(AF_INET, ep.host.c_str(), &sa.sin_addr);
  return sa;
}

std::string to_string(const sockaddr_in& sa) {
  char host[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
  return std::string(host) + ":" + std::to_string(ntohs(sa.sin_port));
}

/// The most messages one sendmmsg call takes (the kernel's UIO_MAXIOV).
constexpr std::size_t max_mmsg = 1024;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

int open_bound_socket(const endpoint& ep, bool reuse) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    fail("cannot create UDP socket");
  int one = 1;
  if (reuse)
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  auto sa = to_sockaddr(ep);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    auto err = errno;
    ::close(fd);
    errno = err;
    fail("cannot bind UDP " + ep.to_string());
  }
  return fd;
}

} // namespace

udp_transport::udp_transport(udp_options opts) : opts_(std::move(opts)) {
  fd_ = open_bound_socket(opts_.listen, false);
  if (opts_.multicast_group) {
    // Several nodes on one host may share the group port.
    endpoint any{"0.0.0.0", opts_.multicast_group->port};
    group_fd_ = open_bound_socket(any, true);
    ip_mreq mreq{};
    inet_pton(AF_INET, opts_.multicast_group->host.c_str(), &mreq.imr_multiaddr);
    mreq.imr_interface.s_addr = htonl(INADDR_ANY);
    if (opts_.listen.host != "0.0.0.0")
      inet_pton(AF_INET, opts_.listen.host.c_str(), &mreq.imr_interface);
    if (::setsockopt(group_fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq,
                     sizeof(mreq))
        != 0) {
      auto err = errno;
      ::close(fd_);
      ::close(group_fd_);
      errno = err;
      fail("cannot join multicast group " + opts_.multicast_group->to_string());
    }
    // Send group datagrams out of the listen interface, and loop them back so
    // nodes on the same host hear each other.
    ::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_IF, &mreq.imr_interface,
                 sizeof(mreq.imr_interface));
    unsigned char loop = 1;
    ::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop));
  }
}

udp_transport::~udp_transport() {
  stop();
  if (fd_ >= 0)
    ::close(fd_);
  if (group_fd_ >= 0)
    ::close(group_fd_);
}

endpoint udp_transport::local() const {
  sockaddr_in sa{};
  socklen_t len = sizeof(sa);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  endpoint ep;
  char host[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &sa.sin_addr, host, sizeof(host));
  ep.host = host;
  ep.port = ntohs(sa.sin_port);
  return ep;
}

void udp_transport::start(receive_handler on_datagram) {
  on_datagram_ = std::move(on_datagram);
  running_ = true;
  receiver_ = std::thread([this] { receive_loop(); });
}

void udp_transport::stop() {
  running_ = false;
  if (receiver_.joinable())
    receiver_.join();
}

void udp_transport::receive_loop() {
  std::string buf(opts_.receive_buffer_bytes + 1, '\0');
  pollfd fds[2] = {{fd_, POLLIN, 0}, {group_fd_, POLLIN, 0}};
  nfds_t count = group_fd_ >= 0 ? 2 : 1;
  while (running_) {
    // A short timeout bounds how long stop() waits for this thread.
    if (::poll(fds, count, 100) <= 0)
      continue;
    std::vector<datagram> batch;
    for (nfds_t i = 0; i < count; ++i) {
      if (!(fds[i].revents & POLLIN))
        continue;
      // Take everything already queued (bounded, so a flood cannot starve
      // the other socket): one hand-off to the bridge for the whole burst.
      for (std::size_t k = 0; k < opts_.max_batch; ++k) {
        sockaddr_in from{};
        socklen_t len = sizeof(from);
        // MSG_TRUNC reports the real length, so oversize datagrams are seen
        // (and counted by the bridge) rather than silently cut.
        auto n = ::recvfrom(fds[i].fd, buf.data(), buf.size(),
                            MSG_TRUNC | MSG_DONTWAIT,
                            reinterpret_cast<sockaddr*>(&from), &len);
        if (n < 0)
          break; // EAGAIN: drained
        auto size = static_cast<std::size_t>(n);
        datagram d;
        if (size > buf.size())
          d.bytes.assign(size, '\0'); // content lost; only its size matters
        else
          d.bytes.assign(buf.data(), size);
        d.from = to_string(from);
        batch.push_back(std::move(d));
      }
    }
    if (!batch.empty())
      on_datagram_(std::move(batch));
  }
}

bool udp_transport::send_to(const std::string& addr, const std::string& bytes) {
  auto ep = parse_endpoint(addr);
  if (!ep)
    return false;
  auto sa = to_sockaddr(*ep);
  auto n = ::sendto(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT,
                    reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  return n == static_cast<ssize_t>(bytes.size());
}

std::vector<std::size_t>
udp_transport::broadcast_all(const std::vector<std::string>& targets,
                             const std::vector<std::string>& datagrams) {
  std::vector<sockaddr_in> to;
  if (opts_.multicast_group) {
    to.push_back(to_sockaddr(*opts_.multicast_group));
  } else {
    for (const auto& t : targets)
      if (auto ep = parse_endpoint(t))
        to.push_back(to_sockaddr(*ep));
  }
  std::vector<std::size_t> sent(datagrams.size(), 0);
  std::vector<iovec> iov(datagrams.size());
  std::vector<mmsghdr> msgs;
  std::vector<std::size_t> of; // the datagram each message carries
  msgs.reserve(datagrams.size() * to.size());
  of.reserve(msgs.capacity());
  for (std::size_t d = 0; d < datagrams.size(); ++d) {
    iov[d].iov_base = const_cast<char*>(datagrams[d].data());
    iov[d].iov_len = datagrams[d].size();
    for (auto& sa : to) {
      mmsghdr m{};
      m.msg_hdr.msg_name = &sa;
      m.msg_hdr.msg_namelen = sizeof(sa);
      m.msg_hdr.msg_iov = &iov[d];
      m.msg_hdr.msg_iovlen = 1;
      msgs.push_back(m);
      of.push_back(d);
    }
  }
  for (std::size_t i = 0; i < msgs.size();) {
    auto n = std::min<std::size_t>(msgs.size() - i, max_mmsg);
    int r = ::sendmmsg(fd_, &msgs[i], static_cast<unsigned>(n), MSG_DONTWAIT);
    if (r <= 0) { // message i failed (its error): skip it, go on
      ++i;
      continue;
    }
    for (int k = 0; k < r; ++k, ++i)
      if (msgs[i].msg_len == iov[of[i]].iov_len)
        ++sent[of[i]];
  }
  return sent;
}

std::size_t udp_transport::broadcast(const std::vector<std::string>& targets,
                                     const std::string& bytes) {
  return broadcast_all(targets, {bytes}).front();
}

} // namespace dice
