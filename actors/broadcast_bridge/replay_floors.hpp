#pragma once
// The replay windows' floors kept in the data dir, so that replay protection
// outlives a restart: datagrams captured before a node stopped and replayed
// at it afterwards are dropped as replayed (same incarnation, an old
// sequence) or stale (an incarnation older than one already heard).
// One line per sender: "INCARNATION SEQUENCE SENDER".
#include <map>
#include <string>

#include "broadcast_bridge/replay_window.hpp"

namespace dice {

using replay_floors = std::map<std::string, replay_window::floor>;

std::string encode_replay_floors(const replay_floors& floors);
/// Lines that do not parse are skipped: a damaged file costs protection
/// against replays of those senders, never a refused start.
replay_floors decode_replay_floors(const std::string& text);

/// The floors saved at `path`; empty if there is no such file.
replay_floors load_replay_floors(const std::string& path);
/// Replaces the file at `path` (crash-safe); false if it could not be written.
bool save_replay_floors(const std::string& path, const replay_floors& floors);

} // namespace dice
