#pragma once
// The HTTP side of blob transport between nodes (cpp-httplib): fetch a
// blob from a peer to a file, or copy one to a peer.
#include <string>

namespace dice {

/// GET http://SOURCE/blobs/SHA into `dest_path` (streamed, not held in
/// memory); false with `error` set (no answer, 404, ...). The caller
/// checks the hash when it adopts the file.
bool fetch_blob(const std::string& source, const std::string& sha,
                const std::string& dest_path, const std::string& cluster_key,
                std::string& error);

/// PUT the blob at `path` to http://TARGET/blobs/SHA.
bool push_blob(const std::string& target, const std::string& sha,
               const std::string& path, const std::string& cluster_key,
               std::string& error);

} // namespace dice
