#pragma once
// The cluster keys a node accepts, one of which (the primary) signs what it
// sends: keys rotate on a live cluster without a lost datagram (install the
// new key everywhere, use it, remove the old one), as Serf's keyring does.
// A key is named by its id, which reveals nothing of the key. No CAF; the
// broadcast bridge owns the node's keyring (see broadcast_bridge.hpp).
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "broadcast_bridge/bridge_counters.hpp"

namespace dice {

class keyring {
public:
  /// The shortest key accepted (as --cluster-key-file).
  static constexpr std::size_t min_key_bytes = 16;
  /// Keys held at most: each datagram without a key id (an older sender)
  /// is checked against every key.
  static constexpr std::size_t max_keys = 16;

  /// No key: no authentication (loopback or --insecure).
  keyring() = default;
  /// `key` alone, as primary; an empty key makes an empty keyring. The
  /// length is the caller's to check (dice-node's options do).
  explicit keyring(std::string key);

  /// The id of `key`: lowercase hex of the first 4 bytes of
  /// HMAC-SHA256(key, "dice key id").
  static std::string id_of(const std::string& key);
  /// A key id's 4 bytes as they travel in an envelope, and back to hex
  /// (any bytes: an unknown id is shown as it came).
  static std::string id_bytes(const std::string& hex_id);
  static std::string id_hex(const std::string& bytes);

  /// Each returns "" on success, otherwise why nothing changed.
  /// A key shorter than min_key_bytes, or one too many, is refused; a key
  /// already held is a success that changes nothing. The first key
  /// installed in an empty keyring becomes its primary.
  std::string install(const std::string& key);
  /// Makes the key of `id` the one that signs.
  std::string use(const std::string& id);
  /// Forgets the key of `id`; the primary cannot be removed.
  std::string remove(const std::string& id);

  bool empty() const { return keys_.empty(); }
  std::size_t size() const { return keys_.size(); }
  bool holds(const std::string& id) const { return find(id) != nullptr; }
  /// "" when empty.
  const std::string& primary_id() const { return primary_; }
  /// The primary's key bytes; "" when empty.
  const std::string& primary_key() const;
  /// Ids in the order the keys were installed.
  std::vector<std::string> ids() const;
  /// The key bytes of `id`, or nullptr.
  const std::string* key(const std::string& id) const;

  struct signature {
    std::string id_bytes; // the primary's id as it travels (4 bytes)
    std::string tag;      // HMAC-SHA256(primary key, data)
  };
  /// Signs with the primary; empty fields when the keyring is empty.
  signature sign(const std::string& data) const;

  struct verdict {
    bool ok = false;
    std::string id;           // hex: the key that matched, or the unknown id
    bool unknown_id = false;  // `id` names no key held here
  };
  /// Checks `tag` over `data`. With `id_bytes` (4 bytes), only that key is
  /// tried; without (an older sender), every key is. An empty keyring
  /// accepts everything (no authentication).
  verdict verify(const std::string& id_bytes, const std::string& data,
                 const std::string& tag) const;

  bool operator==(const keyring& other) const {
    return keys_ == other.keys_ && primary_ == other.primary_;
  }
  bool operator!=(const keyring& other) const { return !(*this == other); }

private:
  struct entry {
    std::string id;
    std::string key;
    bool operator==(const entry& o) const { return id == o.id && key == o.key; }
  };
  const entry* find(const std::string& id) const;

  std::vector<entry> keys_; // in install order
  std::string primary_;
};

/// GET /keys: a keyring as its node holds it (ids only, never key bytes)
/// and the datagrams per key.
struct keyring_view {
  std::vector<std::string> ids; // in install order
  std::string primary;          // "" without keys
  bool persisted = false;       // kept in the data dir (survives a restart)
  std::map<std::string, key_traffic> by_key;
  std::map<std::string, std::uint64_t> unknown_key_ids;
};

/// The node's keyring as other threads see it: an immutable copy, replaced
/// whole by its one writer (the broadcast bridge) after every change. The
/// HTTP threads and the tester's blob transfers read it (sign with the
/// primary, accept any key) without asking an actor.
class published_keyring {
public:
  explicit published_keyring(keyring start = {})
    : ring_(std::make_shared<const keyring>(std::move(start))) {}

  std::shared_ptr<const keyring> get() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return ring_;
  }
  void set(keyring now) {
    auto next = std::make_shared<const keyring>(std::move(now));
    std::lock_guard<std::mutex> guard{mtx_};
    ring_ = std::move(next);
  }

private:
  mutable std::mutex mtx_;
  std::shared_ptr<const keyring> ring_;
};

} // namespace dice
