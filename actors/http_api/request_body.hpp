#pragma once
// A POST's body, read by us rather than by httplib, which parses a body of
// curl -d's form type and refuses one over 8 KiB (below our 256 KiB), and
// waits for one that neither Content-Length nor Transfer-Encoding
// announces, then answers 404 (curl -X POST .../cancel). Such a request
// has no body (RFC 9112), so nothing is read.
#include <string>

#include <httplib.h>

namespace dice {

inline std::string read_body(const httplib::Request& req,
                             const httplib::ContentReader& read) {
  std::string body;
  if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding"))
    read([&](const char* data, std::size_t n) { return body.append(data, n), true; });
  return body;
}

} // namespace dice
