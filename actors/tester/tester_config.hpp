#pragma once
// What a node's part in `dice test` is configured with (dice-node's
// --tester options). Every node stores and serves project blobs and
// accepts evaluations; only a node started with --tester runs test code.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/time.hpp"

namespace dice {

struct tester_config {
  bool enabled = false;      // --tester: this node runs `test` tasks
  std::string work_dir;      // workspaces; empty: $TMPDIR/dice-work-ID
  std::string blob_dir;      // empty: DATA_DIR/blobs, or under work_dir
  /// The interpreter pytest runs under (found in /usr/local/bin:/usr/bin:/bin):
  /// Debian's python3 with python3-pytest.
  std::string python = "python3";
  /// Project blobs a node keeps (least recently used evicted first): a few
  /// dozen projects of the usual size, so repeated runs fetch nothing.
  std::uint64_t blob_cache_bytes = 1024ULL * 1024 * 1024;
  /// Largest project archive POST /evaluation takes; larger uploads get 413
  /// before their body is read. The whole body is held in memory once.
  std::uint64_t max_upload_bytes = 64ULL * 1024 * 1024;
  /// A workspace unpacked from a blob may hold at most this (a zip bomb
  /// stops here) ...
  std::uint64_t max_unpacked_bytes = 1024ULL * 1024 * 1024;
  /// ... and at most this many entries.
  std::uint64_t max_entries = 200'000;
  /// The longest a module may run (`dice test --timeout` is capped by it).
  millis max_timeout_ms = 3'600'000;
  /// Output kept of one failing test (its traceback's tail): a module's
  /// result travels in the replicated queue, within max_result_bytes.
  std::size_t output_bytes = 2048;
  /// How often a node tells its peers where its HTTP API serves blobs.
  millis hello_ms = 1000;
  /// Peers the accepting node copies a new blob to before it answers, so
  /// the evaluation survives the accepting node's death.
  std::size_t blob_replicas = 2;

  /// Empty when usable, otherwise a one-line reason naming the option.
  std::string problem() const;
};

} // namespace dice
