#pragma once
// The HTTP side of blob transport between nodes (cpp-httplib): fetch a
// blob from a peer to a file, or copy one to a peer.
#include <string>

namespace dice {

/// What a transfer proves and checks: the cluster key signs the request;
/// with HTTPS, the peer's certificate must chain to `tls_trust_file`.
struct blob_link {
  std::string cluster_key;
  std::string tls_trust_file;
};

/// GET SOURCE/blobs/SHA (SOURCE: http://HOST:PORT or https://HOST:PORT)
/// into `dest_path` (streamed, not held in memory); false with `error` set
/// (no answer, 404, an untrusted certificate, ...). The caller checks the
/// hash when it adopts the file.
bool fetch_blob(const std::string& source, const std::string& sha,
                const std::string& dest_path, const blob_link& link,
                std::string& error);

/// PUT the blob at `path` to TARGET/blobs/SHA.
bool push_blob(const std::string& target, const std::string& sha,
               const std::string& path, const blob_link& link, std::string& error);

} // namespace dice
