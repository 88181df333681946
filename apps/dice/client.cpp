#include "client.hpp"

#include <fstream>
#include <netdb.h>
#include <sys/socket.h>

namespace dice::cli {

void trust(httplib::Client& c, const std::string& ca_file) {
  if (!ca_file.empty())
    c.set_ca_cert_path(ca_file.c_str());
  c.enable_server_certificate_verification(true);
}

std::string ca_file_problem(const std::string& ca_file) {
  if (ca_file.empty())
    return "";
  std::ifstream in(ca_file);
  if (!in)
    return "cannot read '" + ca_file + "'";
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("-----BEGIN CERTIFICATE-----", 0) == 0)
      return "";
  return "'" + ca_file + "' holds no PEM certificate";
}

client::client(const std::string& url, const std::string& token,
               const std::string& ca_file)
  : url_(url), token_(token), ca_file_(ca_file), http_(url) {
  trust(http_, ca_file);
  if (!token.empty())
    http_.set_bearer_token_auth(token);
  http_.set_connection_timeout(2);
  http_.set_read_timeout(30);
  // A request's headers and body are separate writes (see http_api.cpp).
  http_.set_tcp_nodelay(true);
}

std::unique_ptr<client> client::at(const std::string& url) const {
  return std::make_unique<client>(url, token_, ca_file_);
}

namespace {

// False if the host of `url` (scheme://host[:port][/...]) has no address.
bool resolves(const std::string& url) {
  auto from = url.find("://");
  from = from == std::string::npos ? 0 : from + 3;
  auto host = url.substr(from, url.find_first_of(":/", from) - from);
  if (host.empty() || host.front() == '[')
    return true; // an IPv6 literal: nothing to look up
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found != nullptr)
    ::freeaddrinfo(found);
  return rc == 0;
}

} // namespace

std::string describe(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "connection failed (is a dice-node serving its HTTP API there? "
             "see --node or $DICE_NODE)";
    case httplib::Error::ConnectionTimeout:
      return "no connection within 2 s (a wrong address, or a firewall)";
    case httplib::Error::Read:
      return "the node closed the connection or did not answer in time";
    case httplib::Error::Write:
      return "the request could not be sent (the connection broke)";
    case httplib::Error::BindIPAddress:
      return "cannot bind the local address";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed (an http:// node given an https:// URL, or "
             "no protocol in common)";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates (see --ca-file or $DICE_CA_FILE)";
    case httplib::Error::SSLServerVerification:
      return "the node's certificate is not trusted, or does not name this host "
             "(give the CA that signed it with --ca-file or $DICE_CA_FILE)";
    default:
      return "request failed (" + httplib::to_string(e) + ")";
  }
}

answer client::wrap(const httplib::Result& res) {
  answer a;
  if (!res) {
    a.error = "cannot reach " + url_ + ": "
              + (res.error() == httplib::Error::Connection && !resolves(url_)
                   ? "its host name does not resolve (DNS)"
                   : describe(res.error()));
    return a;
  }
  a.status = res->status;
  a.body = nlohmann::json::parse(res->body, nullptr, false);
  if (a.body.is_discarded()) {
    a.body = nullptr;
    a.error = url_ + " answered " + std::to_string(res->status) + " without JSON";
  } else if (!a.ok()) {
    a.error = url_ + " answered " + std::to_string(res->status) + ": "
              + (a.body.is_object() ? a.body.value("error", res->body) : res->body);
  }
  if (res->status == 401)
    a.error += token_.empty()
                 ? " (the node was started with --http-token-file: give the "
                   "CLI the same file with --token-file FILE or "
                   "DICE_TOKEN_FILE)"
                 : " (the file given with --token-file or DICE_TOKEN_FILE "
                   "holds another token than the node's)";
  return a;
}

answer client::get(const std::string& path) {
  return wrap(http_.Get(path));
}

answer client::get(const std::string& path, const httplib::Params& params) {
  return wrap(http_.Get(path, params, httplib::Headers{}));
}

answer client::post(const std::string& path, const nlohmann::json& body) {
  return wrap(http_.Post(path, body.dump(), "application/json"));
}

answer client::post_empty(const std::string& path) {
  return wrap(http_.Post(path));
}

answer client::del(const std::string& path) {
  return wrap(http_.Delete(path));
}

bool network_members(client& node, std::vector<member_api>& members,
                     std::string& self, std::string& error) {
  auto a = node.get("/network");
  if (!a.ok()) {
    error = a.error;
    return false;
  }
  self = a.body.value("self", "");
  members.clear();
  for (auto& n : a.body.value("nodes", nlohmann::json::array())) {
    member_api m{n.value("id", ""), n.value("state", ""), ""};
    if (n.contains("url") && n["url"].is_string())
      m.url = n["url"].get<std::string>();
    members.push_back(std::move(m));
  }
  return true;
}

} // namespace dice::cli
