#include "broadcast_bridge/replay_window.hpp"

namespace dice {

replay_window::replay_window(std::uint64_t window, std::size_t max_senders)
  : window_(window == 0 ? 1 : window), max_senders_(max_senders) {
}

replay_window::verdict replay_window::check_and_record(const std::string& sender,
                                                       std::uint64_t incarnation,
                                                       std::uint64_t sequence) {
  auto it = senders_.find(sender);
  if (it == senders_.end()) {
    // Bounded memory: forget an arbitrary sender rather than grow forever.
    if (senders_.size() >= max_senders_)
      senders_.erase(senders_.begin());
    it = senders_.emplace(sender, sender_window{}).first;
    it->second.incarnation = incarnation;
    it->second.seen.assign(window_, false);
  }
  auto& w = it->second;
  if (incarnation < w.incarnation)
    return verdict::stale_incarnation;
  if (incarnation > w.incarnation) {
    w.incarnation = incarnation;
    w.highest = 0;
    w.seen.assign(window_, false);
  }
  if (sequence > w.highest) {
    // Slide forward, clearing the slots that fall out of the window.
    auto shift = sequence - w.highest;
    if (shift >= window_) {
      w.seen.assign(window_, false);
    } else {
      for (auto s = w.highest + 1; s <= sequence; ++s)
        w.seen[s % window_] = false;
    }
    w.highest = sequence;
    w.seen[sequence % window_] = true;
    return verdict::fresh;
  }
  if (w.highest - sequence >= window_)
    return verdict::too_old;
  auto slot = w.seen[sequence % window_];
  if (slot)
    return verdict::replayed;
  slot = true;
  return verdict::fresh;
}

std::map<std::string, replay_window::floor> replay_window::floors() const {
  std::map<std::string, floor> out;
  for (const auto& [sender, w] : senders_)
    out[sender] = floor{w.incarnation, w.highest};
  return out;
}

void replay_window::restore(const std::string& sender, floor f) {
  auto it = senders_.find(sender);
  if (it != senders_.end()
      && (it->second.incarnation > f.incarnation
          || (it->second.incarnation == f.incarnation
              && it->second.highest >= f.sequence)))
    return;
  if (it == senders_.end()) {
    if (senders_.size() >= max_senders_)
      return; // as many as we keep: the live ones matter more
    it = senders_.emplace(sender, sender_window{}).first;
  }
  // The window's slots all read seen: sequences within it, below the
  // floor, are replays; above it, fresh.
  it->second.incarnation = f.incarnation;
  it->second.highest = f.sequence;
  it->second.seen.assign(window_, true);
}

} // namespace dice
