// The worker routes of the HTTP API (docs/workers.md): a process outside
// the node joins with the kinds it serves, takes jobs by long poll, answers
// each, and leaves. The node advertises the kinds while a worker serves
// them; a worker silent past its lease is gone and its jobs run elsewhere.
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/status_json.hpp"
#include "http_api/worker_json.hpp"

namespace dice {

namespace {

void unknown_worker(httplib::Response& res, const std::string& id) {
  send_json(res, 404, error_json("unknown worker '" + id
                                 + "': its lease ran out or the node restarted; "
                                   "join again with POST /workers"));
}

} // namespace

void http_api::worker_routes() {
  auto& s = *server_;
  s.Get("/workers", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto r = query<worker_report>(sys_, node_.workers(), err, workers_atom_v);
    if (!r)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 200, workers_json(*r));
  });
  s.Post("/workers", [this](const httplib::Request& req, httplib::Response& res) {
    std::string err;
    auto r = parse_worker_join(req.body, err);
    if (!r) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto joined = ask<worker_joined>(sys_, node_.workers(), err, join_atom_v,
                                     r->kinds, r->concurrency, r->name);
    if (!joined)
      return send_json(res, 503, error_json("node busy: " + err));
    if (joined->id.empty()) {
      ++bad_requests_;
      return send_json(res, 400, error_json(joined->refused));
    }
    send_json(res, 201, {{"worker", joined->id},
                         {"lease_ms", node_.config().workers.lease_ms},
                         {"max_wait_ms", max_worker_wait_ms}});
  });
  s.Post(R"(/workers/([^/]+)/take)", [this](const httplib::Request& req,
                                           httplib::Response& res) {
    std::string id = req.matches[1];
    std::string err;
    auto r = parse_worker_take(req.body, err);
    if (!r) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    // A take that may not wait (long_poll) answers now, and the worker
    // polls again soon.
    std::optional<worker_take> t;
    bool may_wait = false;
    {
      long_poll poll{*this};
      may_wait = poll.may_wait();
      auto wait = may_wait ? r->wait_ms : 0;
      auto timeout = std::chrono::milliseconds(wait) + http_ask_timeout;
      t = ask_within<worker_take>(sys_, node_.workers(), timeout, err, take_atom_v,
                                  id, r->max, wait);
    }
    if (!t)
      return send_json(res, 503, error_json("node busy: " + err));
    if (!t->known)
      return unknown_worker(res, id);
    auto j = worker_take_json(*t);
    if (!may_wait && r->wait_ms > 0)
      j["retry_ms"] = 250;
    send_json(res, 200, j);
  });
  s.Post(R"(/workers/([^/]+)/done)", [this](const httplib::Request& req,
                                           httplib::Response& res) {
    std::string id = req.matches[1];
    std::string err;
    auto e = parse_worker_done(req.body, err);
    if (!e) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto f = ask<worker_finish>(sys_, node_.workers(), err, finish_atom_v, id, *e);
    if (!f)
      return send_json(res, 503, error_json("node busy: " + err));
    if (*f == worker_finish::unknown_worker)
      return unknown_worker(res, id);
    // Late: canceled, past its time limit, or failed back; dropped.
    send_json(res, 200, {{"accepted", *f == worker_finish::accepted}});
  });
  s.Delete(R"(/workers/([^/]+))", [this](const httplib::Request& req,
                                        httplib::Response& res) {
    std::string id = req.matches[1];
    std::string err;
    auto left = ask<bool>(sys_, node_.workers(), err, leave_atom_v, id);
    if (!left)
      return send_json(res, 503, error_json("node busy: " + err));
    if (!*left)
      return unknown_worker(res, id);
    send_json(res, 200, {{"left", true}});
  });
}

} // namespace dice
