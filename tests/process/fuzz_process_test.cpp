// A real dice-node under a flood of bad datagrams from a raw UDP socket:
// random bytes, truncated and bit-flipped envelopes, oversize datagrams and
// well-formed envelopes that are wrong in exactly one way. The node must stay
// healthy, keep its peer, and count every bad datagram as dropped: exactly
// once, for one reason.
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <random>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "cluster.hpp"
#include "dice.pb.h"

using namespace dice::test;

namespace {

constexpr std::size_t fuzz_count = 5000;
constexpr std::size_t max_datagram = 61440; // passed to the node explicitly
constexpr std::size_t largest_udp = 65000;
const std::string cluster_id = "dice";
const std::string target_id = "target";
const std::string fuzzer_id = "fuzzer";

std::string hmac(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
       &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

dice::wire::Message heartbeat_message(std::uint64_t seq,
                                      const std::string& sender_addr) {
  dice::wire::Message m;
  m.set_cluster_id(cluster_id);
  m.set_sender_id(fuzzer_id);
  m.set_sender_addr(sender_addr);
  m.set_incarnation(1);
  m.set_sequence(seq);
  m.set_timestamp_ms(1'700'000'000'000);
  m.mutable_heartbeat()->mutable_info()->set_battery(50);
  return m;
}

std::string envelope(const std::string& message_bytes, std::uint32_t version,
                     const std::string& tag_key) {
  dice::wire::Envelope env;
  env.set_version(version);
  env.set_message(message_bytes);
  if (!tag_key.empty())
    env.set_auth_tag(hmac(tag_key, message_bytes));
  return env.SerializeAsString();
}

/// Bytes the node would accept as a new message: the fuzzer must never send
/// such a datagram, or the drop count could not be exact. The fuzzer's
/// (sender, incarnation 1, sequence 1) was accepted once before the flood, so
/// its copies are replays and count as bad.
bool would_be_accepted(const std::string& bytes, const std::string& key,
                       const std::string& primed_addr) {
  if (bytes.size() > max_datagram)
    return false;
  dice::wire::Envelope env;
  if (!env.ParseFromString(bytes) || env.version() != 1)
    return false;
  if (!key.empty() && env.auth_tag() != hmac(key, env.message()))
    return false;
  dice::wire::Message m;
  if (!m.ParseFromString(env.message()) || m.sender_id().empty()
      || m.sequence() == 0
      || m.body_case() == dice::wire::Message::BODY_NOT_SET)
    return false;
  if (m.cluster_id() != cluster_id || m.sender_id() == target_id)
    return false;
  if (m.has_incarnation_notice() && m.incarnation_notice().id().empty())
    return false;
  // A probe asserts nothing: it skips the replay check.
  if (m.has_incarnation_probe())
    return true;
  // Replay windows are per sender id and address: only the primed one's
  // first sequence number is a replay.
  bool primed = m.sender_id() == fuzzer_id && m.sender_addr() == primed_addr
                && m.incarnation() == 1 && m.sequence() == 1;
  return !primed;
}

class udp_socket {
public:
  udp_socket() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sa);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0);
    port_ = ntohs(sa.sin_port);
    int size = 1 << 20;
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
  }
  ~udp_socket() { ::close(fd_); }
  std::uint16_t port() const { return port_; }

  bool send_to(std::uint16_t port, const std::string& bytes) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons(port);
    auto n = ::sendto(fd_, bytes.data(), bytes.size(), 0,
                      reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    return n == static_cast<ssize_t>(bytes.size());
  }

private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

const char* reasons[] = {"malformed", "unauthenticated", "replayed", "oversize",
                         "version",   "cluster",         "self"};

struct wire_counts {
  std::uint64_t received = 0;
  std::uint64_t accepted = 0;
  std::uint64_t dropped = 0; // the node's own total
  std::map<std::string, std::uint64_t> by_reason;

  std::uint64_t reasons_sum() const {
    std::uint64_t sum = 0;
    for (auto& [_, n] : by_reason)
      sum += n;
    return sum;
  }
};

std::optional<wire_counts> read_counts(const node_process& n) {
  auto s = n.stats();
  if (!s || !s->contains("wire"))
    return std::nullopt;
  auto& w = (*s)["wire"];
  wire_counts c;
  c.received = w["datagrams_received"].get<std::uint64_t>();
  c.accepted = w["accepted"].get<std::uint64_t>();
  c.dropped = w["dropped"].get<std::uint64_t>();
  for (auto r : reasons)
    c.by_reason[r] = w["dropped_by_reason"][r].get<std::uint64_t>();
  return c;
}

enum class kind { random, truncated, bit_flipped, oversize, crafted };

const char* to_string(kind k) {
  switch (k) {
    case kind::random: return "random";
    case kind::truncated: return "truncated";
    case kind::bit_flipped: return "bit-flipped";
    case kind::oversize: return "oversize";
    case kind::crafted: return "crafted";
  }
  return "?";
}

void ignore_protobuf_log(google::protobuf::LogLevel, const char*, int,
                         const std::string&) {
}

/// Keeps protobuf from logging every undecodable string field while the test
/// itself classifies fuzzed bytes.
struct quiet_protobuf {
  quiet_protobuf() : old(google::protobuf::SetLogHandler(ignore_protobuf_log)) {}
  ~quiet_protobuf() { google::protobuf::SetLogHandler(old); }
  google::protobuf::LogHandler* old;
};

void fuzz_node(bool keyed) {
  quiet_protobuf quiet;
  cluster c;
  std::string key = keyed ? "fuzz-cluster-key-0123456789abcdef" : "";
  std::string key_file = keyed ? c.dir().write("key", key + "\n") : "";

  auto ts = c.make_spec(target_id);
  ts.cluster_key_file = key_file;
  ts.extra_args = {"--max-datagram-bytes", std::to_string(max_datagram)};
  auto& target = c.start(ts);
  auto ps = c.make_spec("peer");
  ps.cluster_key_file = key_file;
  ps.peers = {target.spec().udp_addr()};
  auto& peer = c.start(ps);
  if (!wait_until(
        [&] {
          return target.state_of("peer") == "alive"
                 && peer.state_of(target_id) == "alive";
        },
        millis(5000)))
    FAIL("target and peer did not see each other\n" << c.logs());

  std::uint64_t seed = std::random_device{}();
  if (auto env = std::getenv("DICE_FUZZ_SEED"))
    seed = std::stoull(env);
  INFO("fuzz seed " << seed << " (rerun with DICE_FUZZ_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  auto uniform = [&](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
  };
  auto random_bytes = [&](std::size_t n) {
    std::string s(n, '\0');
    for (auto& ch : s)
      ch = static_cast<char>(uniform(0, 255));
    return s;
  };

  udp_socket sock;
  const auto to = target.spec().udp_port;
  const auto sender_addr = loopback(sock.port());

  // One genuine message first: later copies of it are replays.
  auto base_msg = heartbeat_message(1, sender_addr);
  const auto base = envelope(base_msg.SerializeAsString(), 1, key);
  REQUIRE(sock.send_to(to, base));
  REQUIRE(wait_until([&] { return target.state_of(fuzzer_id) != ""; },
                     millis(3000)));

  std::uint64_t next_seq = 2;
  auto crafted = [&]() -> std::string {
    auto m = heartbeat_message(next_seq++, sender_addr);
    switch (uniform(0, keyed ? 8 : 6)) {
      case 0: // replay of the accepted message
        return base;
      case 1: // another cluster
        m.set_cluster_id("other-cluster");
        return envelope(m.SerializeAsString(), 1, key);
      case 2: // claims to come from the target itself
        m.set_sender_id(target_id);
        return envelope(m.SerializeAsString(), 1, key);
      case 3: // unknown protocol version
        return envelope(m.SerializeAsString(),
                        static_cast<std::uint32_t>(uniform(2, 1000)), key);
      case 4: // no body
        m.clear_heartbeat();
        return envelope(m.SerializeAsString(), 1, key);
      case 5: // sequence 0 is never sent
        m.set_sequence(0);
        return envelope(m.SerializeAsString(), 1, key);
      case 6: // a valid envelope around garbage
        return envelope(random_bytes(uniform(1, 300)), 1, key);
      case 7: // signed with another key
        return envelope(m.SerializeAsString(), 1,
                        "some-other-key-0123456789abcdef");
      default: // not signed at all
        return envelope(m.SerializeAsString(), 1, "");
    }
  };
  auto make = [&](kind k) -> std::string {
    switch (k) {
      case kind::random:
        return random_bytes(uniform(0, 1500));
      case kind::truncated:
        return base.substr(0, uniform(0, base.size() - 1));
      case kind::bit_flipped: {
        auto s = base;
        for (auto flips = uniform(1, 4); flips > 0; --flips) {
          auto bit = uniform(0, s.size() * 8 - 1);
          s[bit / 8] = static_cast<char>(s[bit / 8] ^ (1 << (bit % 8)));
        }
        return s;
      }
      case kind::oversize: {
        // Mostly random sizes, sometimes right at the limit.
        auto n = uniform(0, 9) == 0 ? max_datagram + 1
                                    : uniform(max_datagram + 1, largest_udp);
        // Starting like a valid envelope: the size alone must decide.
        auto s = base + random_bytes(n - base.size());
        return s;
      }
      case kind::crafted:
        return crafted();
    }
    return {};
  };

  auto before = read_counts(target);
  REQUIRE(before);
  auto drops_so_far = [&]() -> std::uint64_t {
    auto now = read_counts(target);
    return now ? now->reasons_sum() - before->reasons_sum() : 0;
  };
  // The kernel's receive buffer holds only a few large datagrams; wait for
  // the node to have taken what was sent so that none is lost on the way.
  auto drain = [&](std::uint64_t sent) {
    return wait_until([&] { return drops_so_far() >= sent; }, millis(5000),
                      millis(2));
  };

  std::map<kind, std::size_t> sent_by_kind;
  std::size_t skipped = 0, sent = 0, unsynced_bytes = 0;
  std::size_t at_limit = 0; // exactly max_datagram bytes: not oversize
  while (sent < fuzz_count) {
    auto roll = uniform(0, 99);
    kind k = roll < 25   ? kind::random
             : roll < 45 ? kind::truncated
             : roll < 75 ? kind::bit_flipped
             : roll < 85 ? kind::oversize
                         : kind::crafted;
    auto bytes = make(k);
    if (k == kind::random && uniform(0, 199) == 0) {
      bytes = random_bytes(max_datagram);
      ++at_limit;
    }
    if (would_be_accepted(bytes, key, sender_addr)) {
      ++skipped;
      continue;
    }
    REQUIRE(sock.send_to(to, bytes));
    ++sent;
    ++sent_by_kind[k];
    unsynced_bytes += bytes.size() + 2048;
    if (bytes.size() > 16 * 1024 || unsynced_bytes > 64 * 1024) {
      if (!drain(sent))
        FAIL("node took only " << drops_so_far() << " of " << sent
                               << " bad datagrams\n" << c.logs());
      unsynced_bytes = 0;
    }
  }
  if (!drain(sent))
    FAIL("node took only " << drops_so_far() << " of " << sent
                           << " bad datagrams\n" << c.logs());
  auto after = read_counts(target);
  REQUIRE(after);

  std::map<std::string, std::uint64_t> delta;
  std::ostringstream summary;
  summary << "sent:";
  for (auto& [k, n] : sent_by_kind)
    summary << " " << to_string(k) << "=" << n;
  summary << " (at the size limit: " << at_limit
          << "; skipped as acceptable: " << skipped << ")\ndropped:";
  for (auto r : reasons) {
    delta[r] = after->by_reason[r] - before->by_reason[r];
    summary << " " << r << "=" << delta[r];
  }
  INFO(summary.str());
  auto received = after->received - before->received;
  auto accepted = after->accepted - before->accepted;
  auto dropped = after->reasons_sum() - before->reasons_sum();

  // Every datagram is accounted for exactly once...
  CHECK(received == accepted + dropped);
  CHECK(after->dropped - before->dropped == dropped);
  // ...every bad one is dropped, and nothing but the peer's is accepted.
  CHECK(dropped == fuzz_count);
  CHECK(accepted > 0);
  // The size check comes first and is exact.
  CHECK(delta["oversize"] == sent_by_kind[kind::oversize]);
  // Each way of being wrong was exercised and recognised.
  for (auto r : {"malformed", "replayed", "version", "cluster", "self"})
    CHECK(delta[r] > 0);
  if (keyed)
    CHECK(delta["unauthenticated"] > 0);
  else
    CHECK(delta["unauthenticated"] == 0);

  // The node is unharmed: healthy, and still in touch with its peer.
  CHECK(target.healthy());
  CHECK(wait_until(
    [&] {
      return target.state_of("peer") == "alive"
             && peer.state_of(target_id) == "alive";
    },
    millis(2000)));
  CHECK(target.proc().running());
}

} // namespace

TEST_CASE("a node without a key survives and counts a flood of bad datagrams",
          "[process][fuzz]") {
  fuzz_node(false);
}

TEST_CASE("a node with a cluster key survives and counts a flood of bad "
          "datagrams",
          "[process][fuzz]") {
  fuzz_node(true);
}
