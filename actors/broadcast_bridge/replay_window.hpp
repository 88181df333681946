#pragma once
// Rejects replayed datagrams: a (sender, incarnation, sequence) is accepted
// once. A sliding bitmap per sender, as IPsec does, tolerates reordering
// within the window without remembering every number ever seen.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace dice {

/// Sequence numbers remembered per (sender, incarnation) against replays.
constexpr std::uint64_t default_replay_window = 1024;

class replay_window {
public:
  enum class verdict { fresh, replayed, stale_incarnation, too_old };

  explicit replay_window(std::uint64_t window = default_replay_window,
                         std::size_t max_senders = 65536);

  /// Records the triple if fresh. A higher incarnation starts a new window
  /// (the sender restarted); a lower one is stale.
  verdict check_and_record(const std::string& sender, std::uint64_t incarnation,
                           std::uint64_t sequence);

  std::size_t senders() const { return senders_.size(); }

  /// Per sender, the incarnation and highest sequence accepted: what a
  /// restarted node must remember so that its previous life's datagrams,
  /// replayed, are not fresh to it (see replay_floors.hpp).
  struct floor {
    std::uint64_t incarnation = 0;
    std::uint64_t sequence = 0;
    bool operator==(const floor& o) const {
      return incarnation == o.incarnation && sequence == o.sequence;
    }
  };
  std::map<std::string, floor> floors() const;
  /// Counts every sequence up to `f.sequence` of `f.incarnation` as seen,
  /// and every lower incarnation as stale; a sender already heard from
  /// keeps what it has if that is newer.
  void restore(const std::string& sender, floor f);

private:
  struct sender_window {
    std::uint64_t incarnation = 0;
    std::uint64_t highest = 0;
    std::vector<bool> seen; // seen[seq % window] for seq in (highest-window, highest]
  };

  std::uint64_t window_;
  std::size_t max_senders_;
  std::unordered_map<std::string, sender_window> senders_;
};

} // namespace dice
