#include "tester/tester_node.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

#include "tester/blob_client.hpp"

namespace dice {

namespace {

/// Why the runner's user (nobody, when the node is root) could not reach
/// `dir`: the first existing ancestor others may not pass through; empty
/// if it can.
std::string unreachable_for_nobody(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto p = fs::absolute(dir, ec).parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
      return "the runner's user (nobody) cannot pass through " + p.string()
             + " (mode " + mode + ", as mktemp -d makes); let others pass "
               "(chmod o+x " + p.string()
             + ") or choose a directory every user may traverse";
    }
    if (p == p.root_path())
      break;
  }
  return {};
}

} // namespace

std::shared_ptr<tester_parts> make_tester_parts(tester_config cfg, std::string node_id,
                                                std::string http,
                                                std::string tls_trust_file,
                                                std::shared_ptr<published_keyring> keys,
                                                const std::string& data_dir) {
  if (cfg.work_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    cfg.work_dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/dice-work-" + node_id;
  }
  if (cfg.blob_dir.empty())
    cfg.blob_dir = (data_dir.empty() ? cfg.work_dir : data_dir) + "/blobs";
  if (cfg.enabled && ::geteuid() == 0)
    if (auto why = unreachable_for_nobody(cfg.work_dir); !why.empty())
      throw std::runtime_error("--tester-work-dir " + cfg.work_dir + ": " + why);
  // The runner's user must not read the journal or the blobs of others.
  if (!data_dir.empty())
    ::chmod(data_dir.c_str(), 0700);
  auto p = std::make_shared<tester_parts>();
  p->cfg = cfg;
  p->node_id = node_id;
  p->http = std::move(http);
  p->tls_trust_file = tls_trust_file;
  p->keys = keys ? keys : std::make_shared<published_keyring>();
  p->blobs = std::make_shared<blob_store>(cfg.blob_dir, cfg.blob_cache_bytes);
  p->peers = std::make_shared<tester_peers>(3 * cfg.hello_ms + 1000);
  std::weak_ptr<tester_peers> peers = p->peers;
  p->runner = std::make_shared<test_runner>(
    cfg, node_id, p->blobs,
    [keys = p->keys, trust = std::move(tls_trust_file)](
      const std::string& source, const std::string& sha, const std::string& dest,
      std::string& error) {
      return fetch_blob(source, sha, dest, {keys->get()->primary_key(), trust}, error);
    },
    [peers] {
      auto live = peers.lock();
      return live ? live->sources(wall_clock_ms()) : std::vector<std::string>{};
    });
  return p;
}

} // namespace dice
