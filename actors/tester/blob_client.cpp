#include "tester/blob_client.hpp"

#include <fstream>
#include <sstream>

#include <httplib.h>

#include "tester/blob_auth.hpp"

namespace dice {

namespace {

httplib::Client client_for(const std::string& url, const blob_link& link) {
  httplib::Client c(url);
  // Verified (certificate chain and host name) whenever it is HTTPS.
  if (!link.tls_trust_file.empty())
    c.set_ca_cert_path(link.tls_trust_file.c_str());
  c.enable_server_certificate_verification(true);
  c.set_connection_timeout(2, 0);
  c.set_read_timeout(30, 0);
  c.set_write_timeout(30, 0);
  return c;
}

} // namespace

bool fetch_blob(const std::string& source, const std::string& sha,
                const std::string& dest_path, const blob_link& link,
                std::string& error) {
  auto c = client_for(source, link);
  std::ofstream out(dest_path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write " + dest_path;
    return false;
  }
  httplib::Headers h{{blob_auth_header, blob_auth(link.cluster_key, "GET", sha)}};
  int status = 0;
  auto res = c.Get(("/blobs/" + sha).c_str(), h,
                   [&](const httplib::Response& r) {
                     status = r.status;
                     return r.status == 200;
                   },
                   [&](const char* data, size_t n) {
                     out.write(data, static_cast<std::streamsize>(n));
                     return static_cast<bool>(out);
                   });
  out.close();
  if (!res && status == 0) {
    error = "no answer (" + httplib::to_string(res.error()) + ")";
    return false;
  }
  if (status != 200) {
    error = "HTTP " + std::to_string(status);
    return false;
  }
  if (!out) {
    error = "cannot write " + dest_path;
    return false;
  }
  return true;
}

bool push_blob(const std::string& target, const std::string& sha,
               const std::string& path, const blob_link& link, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  auto c = client_for(target, link);
  httplib::Headers h{{blob_auth_header, blob_auth(link.cluster_key, "PUT", sha)}};
  auto res = c.Put(("/blobs/" + sha).c_str(), h, body.str(), "application/octet-stream");
  if (!res) {
    error = "no answer (" + httplib::to_string(res.error()) + ")";
    return false;
  }
  if (res->status != 200 && res->status != 201) {
    error = "HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 200);
    return false;
  }
  return true;
}

} // namespace dice
