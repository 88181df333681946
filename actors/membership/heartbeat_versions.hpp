#pragma once
// What a heartbeat says of the queue's version vector. A vector holds an
// entry per origin, so a heartbeat carrying it whole costs every node O(N)
// to build, send and read, N times per interval. Most entries do not
// change between heartbeats: most heartbeats list only the entries that
// changed within the last `span` heartbeats (a peer that lost fewer than
// `span` in a row misses nothing), and every `full_every`-th lists them
// all, so a peer that lost more, or met us late, catches up. A receiver
// joins a partial list into what it holds of the sender, which stays a
// lower bound of what the sender has seen.
#include <cstddef>
#include <cstdint>
#include <deque>

#include "dice.pb.h"

namespace dice {

struct heartbeat_versions_config {
  std::size_t full_every = 8; // a full list every this many heartbeats
  std::size_t span = 3;       // a partial list: changes since this many ago
};

class heartbeat_versions {
public:
  explicit heartbeat_versions(heartbeat_versions_config cfg = {});

  /// Sets hb's versions (and versions_partial) for the next heartbeat from
  /// `current`, the whole vector as the queue last gave it.
  void next(const google::protobuf::RepeatedPtrField<wire::VersionEntry>& current,
            wire::Heartbeat* hb);

  /// A peer arrived (joined, restarted, came back): the next heartbeat
  /// goes whole, so it learns at once what it lacks (a node restored from
  /// an old journal must catch up before its restore hold ends).
  void send_whole_next() { whole_next_ = true; }

private:
  using entries = google::protobuf::RepeatedPtrField<wire::VersionEntry>;
  heartbeat_versions_config cfg_;
  std::uint64_t sent_ = 0;
  bool whole_next_ = false;
  std::deque<entries> history_; // the whole vector at each of the last heartbeats
};

} // namespace dice
