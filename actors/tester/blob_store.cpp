#include "tester/blob_store.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include "tester/sha256.hpp"

namespace fs = std::filesystem;

namespace dice {

blob_store::blob_store(std::string dir, std::uint64_t cap_bytes)
  : dir_(std::move(dir)), cap_(cap_bytes) {
  // Made when the first blob arrives: most nodes never hold one.
  std::error_code ec;
  if (!fs::exists(dir_, ec))
    return;
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  for (auto& e : fs::directory_iterator(dir_, ec)) {
    auto name = e.path().filename().string();
    if (is_blob_name(name) && e.is_regular_file())
      found.emplace_back(e.last_write_time(), name);
    else if (name.rfind(".incoming-", 0) == 0)
      fs::remove(e.path(), ec); // a write cut short by a crash
  }
  std::sort(found.begin(), found.end());
  for (auto& [when, name] : found) {
    auto size = fs::file_size(fs::path(dir_) / name, ec);
    if (ec)
      continue;
    blobs_[name] = entry{size, ++uses_};
    stats_.bytes += size;
  }
  evict_for(0);
}

bool blob_store::has(const std::string& sha) const {
  std::lock_guard<std::mutex> guard{mtx_};
  return blobs_.count(sha) > 0;
}

std::string blob_store::use(const std::string& sha) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = blobs_.find(sha);
  if (it == blobs_.end())
    return {};
  it->second.last_use = ++uses_;
  return (fs::path(dir_) / sha).string();
}

blob_pin blob_store::pin(const std::string& sha) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = blobs_.find(sha);
  if (it == blobs_.end())
    return {};
  it->second.last_use = ++uses_;
  ++it->second.pins;
  return blob_pin{this, sha, (fs::path(dir_) / sha).string()};
}

void blob_store::unpin(const std::string& sha) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = blobs_.find(sha);
  if (it != blobs_.end() && it->second.pins > 0)
    --it->second.pins;
}

blob_pin& blob_pin::operator=(blob_pin&& o) noexcept {
  if (this != &o) {
    if (store_)
      store_->unpin(sha_);
    store_ = std::exchange(o.store_, nullptr);
    sha_ = std::move(o.sha_);
    path_ = std::move(o.path_);
  }
  return *this;
}

blob_pin::~blob_pin() {
  if (store_)
    store_->unpin(sha_);
}

std::string blob_store::temp_path() {
  std::lock_guard<std::mutex> guard{mtx_};
  std::error_code ec;
  fs::create_directories(dir_, ec);
  fs::permissions(dir_, fs::perms::owner_all, ec);
  return (fs::path(dir_) / (".incoming-" + std::to_string(::getpid()) + "-"
                            + std::to_string(++temps_)))
    .string();
}

bool blob_store::adopt(const std::string& tmp_path, const std::string& sha,
                       std::string& error) {
  std::error_code ec;
  auto refuse = [&](std::string why) {
    fs::remove(tmp_path, ec);
    std::lock_guard<std::mutex> guard{mtx_};
    ++stats_.rejected;
    error = std::move(why);
    return false;
  };
  if (!is_blob_name(sha))
    return refuse("'" + sha.substr(0, 80) + "' is not a SHA-256 in hex");
  auto size = fs::file_size(tmp_path, ec);
  if (ec)
    return refuse("blob " + sha + ": " + ec.message());
  if (size > cap_)
    return refuse("blob of " + std::to_string(size) + " bytes is larger than the "
                  "blob store's cap of " + std::to_string(cap_) + " bytes");
  // Hashed outside the lock: other blobs stay available meanwhile.
  if (sha256_file_hex(tmp_path) != sha)
    return refuse("blob content does not hash to " + sha);
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = blobs_.find(sha);
  if (it != blobs_.end()) { // already held: same bytes, by its name
    fs::remove(tmp_path, ec);
    it->second.last_use = ++uses_;
    return true;
  }
  evict_for(size);
  fs::rename(tmp_path, fs::path(dir_) / sha, ec);
  if (ec) {
    fs::remove(tmp_path, ec);
    ++stats_.rejected;
    error = "blob " + sha + ": cannot store: " + ec.message();
    return false;
  }
  blobs_[sha] = entry{size, ++uses_};
  stats_.bytes += size;
  ++stats_.stored;
  return true;
}

std::string blob_store::put(const std::string& bytes, std::string& error,
                            const std::string& expected) {
  auto tmp = temp_path();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      error = "cannot write blob in " + dir_;
      return {};
    }
  }
  auto sha = expected.empty() ? sha256_hex(bytes) : expected;
  return adopt(tmp, sha, error) ? sha : std::string{};
}

void blob_store::evict_for(std::uint64_t incoming) {
  while (stats_.bytes + incoming > cap_) {
    auto oldest = blobs_.end();
    for (auto it = blobs_.begin(); it != blobs_.end(); ++it)
      if (it->second.pins == 0
          && (oldest == blobs_.end() || it->second.last_use < oldest->second.last_use))
        oldest = it;
    if (oldest == blobs_.end())
      break; // every blob is pinned: over the cap until they are released
    std::error_code ec;
    fs::remove(fs::path(dir_) / oldest->first, ec);
    stats_.bytes -= oldest->second.size;
    ++stats_.evicted;
    blobs_.erase(oldest);
  }
}

blob_store_stats blob_store::stats() const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto s = stats_;
  s.blobs = blobs_.size();
  return s;
}

} // namespace dice
