#include "client.hpp"

#include <netdb.h>
#include <sys/socket.h>

namespace dice::cli {

client::client(const std::string& url, const std::string& token)
  : url_(url), token_(token), http_(url) {
  if (!token.empty())
    http_.set_bearer_token_auth(token);
  http_.set_connection_timeout(2);
  http_.set_read_timeout(30);
  // A request's headers and body are separate writes (see http_api.cpp).
  http_.set_tcp_nodelay(true);
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
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
      return "TLS failed (the dice CLI speaks plain HTTP)";
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
    if (n.contains("http") && n["http"].is_string() && !n["http"].get<std::string>().empty())
      m.url = "http://" + n["http"].get<std::string>();
    members.push_back(std::move(m));
  }
  return true;
}

} // namespace dice::cli
