#include "node/http_config.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/endpoint.hpp"

namespace dice {

std::string http_config::problem(const std::string& host) const {
  if (token.empty() && !is_loopback(endpoint{host, 0}))
    return "--http " + host
           + " is not loopback and no token is set: give --http-token-file "
             "FILE (or bind --http to 127.0.0.1)";
  if (tls_cert_file.empty() != tls_key_file.empty())
    return "--http-tls-cert-file and --http-tls-key-file go together: give both "
           "or neither";
  if (!tls_ca_file.empty() && tls_cert_file.empty())
    return "--http-tls-ca-file verifies other nodes' HTTPS: it needs "
           "--http-tls-cert-file and --http-tls-key-file";
  if (threads < 1 || threads > 1024)
    return "--http-threads must be from 1 to 1024";
  if (max_connections < threads)
    return "--http-max-connections must be at least --http-threads";
  if (request_timeout_ms < 1 || idle_timeout_ms < 1)
    return "--http-request-timeout-ms and --http-idle-timeout-ms must be positive";
  if (submit_accept_ms < 1 || submit_replicated_ms < 0)
    return "--http-submit-accept-ms must be positive, --http-submit-replicated-ms "
           "not negative";
  if (listen_backlog < 1)
    return "--http-listen-backlog must be positive";
  return "";
}

std::string read_http_token_file(const std::string& path,
                                 const std::string& option) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec))
    throw std::runtime_error(option + ": cannot read '" + path + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  auto token = buf.str();
  while (!token.empty()
         && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '
             || token.back() == '\t'))
    token.pop_back();
  if (token.size() < http_token_min_bytes)
    throw std::runtime_error(option + ": token in '" + path
                             + "' is shorter than "
                             + std::to_string(http_token_min_bytes)
                             + " bytes");
  // It travels in a header line: bytes that would end or split the line
  // could never match.
  for (unsigned char c : token)
    if (c < 0x21 || c > 0x7e)
      throw std::runtime_error(option + ": token in '" + path
                               + "' must be printable ASCII without spaces");
  return token;
}

} // namespace dice
