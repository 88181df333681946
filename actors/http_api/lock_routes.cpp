// The lock routes of the HTTP API: GET /locks shows holders and waiters;
// POST /locks/NAME takes (or keeps waiting for, or renews) a lease on a
// cluster-wide lock for a client such as `dice lock`; DELETE gives it back.
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/lock_json.hpp"
#include "http_api/status_json.hpp"
#include "mutex/lock_name.hpp"

namespace dice {

void http_api::lock_routes() {
  auto& s = *server_;
  s.Get("/locks", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto v = query<locks_view>(sys_, node_.locks(), err, locks_atom_v);
    if (!v)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 200, locks_json(*v));
  });
  s.Post(R"(/locks/([^/]+))", [this](const httplib::Request& req,
                                     httplib::Response& res) {
    std::string name = req.matches[1];
    std::string err;
    auto r = parse_lock_request(req.body, err);
    if (r)
      err = lock_name_problem(name);
    if (!r || !err.empty()) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto timeout = std::chrono::milliseconds(r->wait_ms) + http_ask_timeout;
    auto reply = ask_within<lock_reply>(sys_, node_.locks(), timeout, err,
                                        lock_atom_v, name, r->token, r->wait_ms,
                                        r->lease_ms);
    if (!reply)
      return send_json(res, 503, error_json("node busy: " + err));
    if (reply->error == "lost")
      return send_json(res, 410, error_json("lock '" + name + "': token "
                                            + r->token + " holds and waits for "
                                            "nothing (its lease ran out, or the "
                                            "node lost the lock)"));
    send_json(res, reply->held ? 200 : 202,
              {{"lock", name}, {"token", reply->token}, {"held", reply->held}});
  });
  s.Delete(R"(/locks/([^/]+))", [this](const httplib::Request& req,
                                       httplib::Response& res) {
    std::string name = req.matches[1];
    if (!req.has_param("token")) {
      ++bad_requests_;
      return send_json(res, 400, error_json("DELETE /locks/NAME needs ?token="));
    }
    std::string err;
    auto ok = ask<bool>(sys_, node_.locks(), err, unlock_atom_v, name,
                        req.get_param_value("token"));
    if (!ok)
      return send_json(res, 503, error_json("node busy: " + err));
    if (!*ok)
      return send_json(res, 404, error_json("lock '" + name + "': no such token"));
    send_json(res, 200, {{"lock", name}, {"released", true}});
  });
}

} // namespace dice
