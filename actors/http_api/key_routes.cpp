// The keyring routes of the HTTP API (issue 32): GET /keys lists the key
// ids and the datagrams per key; POST /keys installs a key, POST /keys/use
// makes one primary, DELETE /keys/ID removes one. The bridge owns the
// keyring and answers each change with "" or why nothing changed. Mutating
// routes need the bearer token like every route but /health; the key
// travels in the body, so call them over TLS or on loopback.
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/key_json.hpp"
#include "http_api/request_body.hpp"
#include "http_api/status_json.hpp"

namespace dice {

namespace {

// 404 for a key this node does not hold, 409 for a change the keyring
// refuses as it stands (the primary, a full keyring, a node without key).
int refusal_status(const std::string& why) {
  return why.rfind("no key ", 0) == 0 ? 404 : 409;
}

} // namespace

void http_api::key_routes() {
  auto& s = *server_;
  s.Get("/keys", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto v = query<keyring_view>(sys_, node_.bridge(), err, keys_atom_v);
    if (!v)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 200, keys_json(node_.config().id, *v));
  });
  // Answers a change the bridge made (or refused) with the keyring after it.
  auto changed = [this](httplib::Response& res, const std::optional<std::string>& why,
                        const std::string& err, nlohmann::json ok) {
    if (!why)
      return send_json(res, 503, error_json("node busy: " + err));
    if (!why->empty()) {
      ++bad_requests_;
      return send_json(res, refusal_status(*why), error_json(*why));
    }
    std::string e;
    if (auto v = query<keyring_view>(sys_, node_.bridge(), e, keys_atom_v)) {
      ok["primary"] = v->primary;
      ok["keys"] = v->ids;
      ok["persisted"] = v->persisted;
    }
    send_json(res, 200, ok);
  };
  s.Post("/keys", [this, changed](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& read) {
    std::string err;
    auto key = parse_key_install(read_body(req, read), err);
    if (!key) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto why = ask<std::string>(sys_, node_.bridge(), err, keys_atom_v, install_atom_v,
                                *key);
    changed(res, why, err, {{"installed", keyring::id_of(*key)}});
  });
  s.Post("/keys/use", [this, changed](const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& read) {
    std::string err;
    auto id = parse_key_use(read_body(req, read), err);
    if (!id) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto why = ask<std::string>(sys_, node_.bridge(), err, keys_atom_v, use_atom_v, *id);
    changed(res, why, err, {{"used", *id}});
  });
  s.Delete(R"(/keys/([^/]+))", [this, changed](const httplib::Request& req,
                                               httplib::Response& res) {
    auto id = req.matches[1].str();
    if (!is_key_id(id)) {
      ++bad_requests_;
      return send_json(res, 400, error_json("'" + id.substr(0, 64)
                                            + "' is no key id: 8 hex digits, as "
                                              "GET /keys lists them"));
    }
    std::string err;
    auto why = ask<std::string>(sys_, node_.bridge(), err, keys_atom_v, remove_atom_v, id);
    changed(res, why, err, {{"removed", id}});
  });
}

} // namespace dice
