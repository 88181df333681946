#pragma once
// The dice CLI's view of a node: JSON over HTTP or HTTPS with short
// timeouts.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace dice::cli {

struct answer {
  int status = 0;           // 0: no connection
  nlohmann::json body;      // null if the body was not JSON
  std::string error;        // why there is no usable answer
  bool ok() const { return status >= 200 && status < 300 && error.empty(); }
};

/// A sentence for an error that left no answer.
std::string describe(httplib::Error e);

/// Makes `c` check an HTTPS node's certificate (chain and host name)
/// against the PEM file `ca_file`, or against the system's CAs if empty.
void trust(httplib::Client& c, const std::string& ca_file);
/// Empty if `ca_file` is empty or holds a PEM certificate, otherwise why not.
std::string ca_file_problem(const std::string& ca_file);

class client {
public:
  /// `token`: sent as `Authorization: Bearer TOKEN` when not empty;
  /// `ca_file`: see trust().
  client(const std::string& url, const std::string& token,
         const std::string& ca_file = "");
  /// A client of another node (`url`) with the same token and trust.
  std::unique_ptr<client> at(const std::string& url) const;
  answer get(const std::string& path);
  /// GET with query parameters, which httplib encodes.
  answer get(const std::string& path, const httplib::Params& params);
  answer post(const std::string& path, const nlohmann::json& body);
  /// POST without a body (cancel).
  answer post_empty(const std::string& path);
  answer del(const std::string& path);
  const std::string& url() const { return url_; }
  const std::string& token() const { return token_; }

private:
  answer wrap(const httplib::Result& res);
  std::string url_;
  std::string token_;
  std::string ca_file_;
  httplib::Client http_;
};

/// A member as GET /network lists it: its HTTP API ("http://HOST:PORT" or
/// "https://HOST:PORT", empty while it has not said where it is).
struct member_api {
  std::string id, state, url;
};
/// The members `node` knows, and which of them it is (`self`); false, with
/// `error` set, if it did not answer.
bool network_members(client& node, std::vector<member_api>& members,
                     std::string& self, std::string& error);

} // namespace dice::cli
