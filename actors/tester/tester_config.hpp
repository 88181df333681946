#pragma once
// What a node's part in `dice test` is configured with (dice-node's
// --tester options). Every node stores and serves project blobs and
// accepts evaluations; only a node started with --tester runs test code.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/defaults.hpp"

namespace dice {

struct tester_config {
  bool enabled = false;      // --tester: this node runs `test` tasks
  std::string work_dir;      // workspaces; empty: $TMPDIR/dice-work-ID
  std::string blob_dir;      // empty: DATA_DIR/blobs, or under work_dir
  std::string python = defaults::tester_python;
  std::uint64_t blob_cache_bytes = defaults::tester_blob_cache_bytes;
  std::uint64_t max_upload_bytes = defaults::tester_max_upload_bytes;
  std::uint64_t max_unpacked_bytes = defaults::tester_max_unpacked_bytes;
  std::uint64_t max_entries = defaults::tester_max_entries;
  millis max_timeout_ms = defaults::tester_max_timeout_ms;
  std::size_t output_bytes = defaults::tester_output_bytes;
  millis hello_ms = defaults::tester_hello_ms;
  std::size_t blob_replicas = defaults::tester_blob_replicas;

  /// Empty when usable, otherwise a one-line reason naming the option.
  std::string problem() const;
};

} // namespace dice
