#pragma once
// A node's project blobs: archives named by the SHA-256 of their bytes,
// kept in one directory up to a size cap. The least recently used blobs
// are evicted first; a blob is stored only once its hash is checked, so a
// name always means the same bytes. Shared by the HTTP threads (serving
// and taking blobs) and the executor's slots (unpacking), hence the lock.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace dice {

struct blob_store_stats {
  std::uint64_t blobs = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stored = 0;
  std::uint64_t evicted = 0;
  std::uint64_t rejected = 0; // wrong hash or larger than the cap
};

class blob_store;

/// A blob held against eviction while it is read (a workspace unpacked
/// from it): between finding a blob and opening it, another upload could
/// otherwise evict it. Released when it goes out of scope.
class blob_pin {
public:
  blob_pin() = default;
  blob_pin(blob_store* store, std::string sha, std::string path)
    : store_(store), sha_(std::move(sha)), path_(std::move(path)) {}
  blob_pin(blob_pin&& o) noexcept { *this = std::move(o); }
  blob_pin& operator=(blob_pin&& o) noexcept;
  blob_pin(const blob_pin&) = delete;
  blob_pin& operator=(const blob_pin&) = delete;
  ~blob_pin();
  /// The blob's path; empty if the store did not hold it.
  const std::string& path() const { return path_; }

private:
  blob_store* store_ = nullptr;
  std::string sha_, path_;
};

class blob_store {
public:
  /// Adopts the blobs already in `dir`, the most recently modified as the
  /// most recently used; the directory is made (mode 0700) only when the
  /// first blob arrives.
  blob_store(std::string dir, std::uint64_t cap_bytes);

  const std::string& dir() const { return dir_; }
  bool has(const std::string& sha) const;
  /// The blob's path, marking it used; empty if not held.
  std::string use(const std::string& sha);
  /// As use(), and the blob is not evicted while the pin lives (the store
  /// may then exceed its cap until it is released).
  blob_pin pin(const std::string& sha);
  /// Moves the file at `tmp_path` (on the same file system, e.g. made by
  /// temp_path()) into the store as `sha` if its content hashes to it and
  /// it fits the cap; evicts least recently used blobs to make room. On
  /// refusal the file is removed and `error` says why.
  bool adopt(const std::string& tmp_path, const std::string& sha,
             std::string& error);
  /// Stores `bytes` under their hash, which must be `expected` if given;
  /// the hash, or empty with `error` set on refusal.
  std::string put(const std::string& bytes, std::string& error,
                  const std::string& expected = {});
  /// A fresh file name in the store's directory for a blob being written.
  std::string temp_path();
  blob_store_stats stats() const;

private:
  friend class blob_pin;
  void unpin(const std::string& sha);
  void evict_for(std::uint64_t incoming);

  struct entry {
    std::uint64_t size = 0;
    std::uint64_t last_use = 0; // a use counter: deterministic LRU order
    std::uint32_t pins = 0;     // readers that need it kept
  };
  std::string dir_;
  std::uint64_t cap_;
  mutable std::mutex mtx_;
  std::map<std::string, entry> blobs_;
  std::uint64_t uses_ = 0;
  std::uint64_t temps_ = 0;
  blob_store_stats stats_;
};

} // namespace dice
