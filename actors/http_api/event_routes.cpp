// The causal event routes of the HTTP API: POST /events publishes an event
// to the cluster; GET /events lists the events this node delivered, in the
// causal order it delivered them, after a delivery index (for polling).
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/event_json.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/status_json.hpp"

namespace dice {

namespace {

nlohmann::json event_json(const causal_delivery& d) {
  return {{"index", d.index}, {"origin", d.origin}, {"seq", d.seq},
          {"topic", d.topic}, {"data", d.data},     {"time_ms", d.time_ms}};
}

} // namespace

void http_api::event_routes() {
  auto& s = *server_;
  s.Post("/events", [this](const httplib::Request& req, httplib::Response& res) {
    std::string err;
    auto e = parse_event_request(req.body, err);
    if (!e) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto d = ask<causal_delivery>(sys_, node_.events(), err, publish_atom_v,
                                  e->topic, e->data);
    if (!d)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 201, event_json(*d));
  });
  s.Get("/events", [this](const httplib::Request& req, httplib::Response& res) {
    std::uint64_t since = 0;
    if (req.has_param("since")) {
      try {
        since = std::stoull(req.get_param_value("since"));
      } catch (...) {
        ++bad_requests_;
        return send_json(res, 400, error_json("'since' must be a delivery index"));
      }
    }
    std::string err;
    auto events = query<std::vector<causal_delivery>>(
      sys_, node_.events(), err, events_atom_v, req.get_param_value("topic"), since);
    if (!events)
      return send_json(res, 503, error_json("node busy: " + err));
    auto list = nlohmann::json::array();
    std::uint64_t last = since;
    for (const auto& d : *events) {
      list.push_back(event_json(d));
      last = d.index;
    }
    send_json(res, 200, {{"events", std::move(list)}, {"next", last}});
  });
}

} // namespace dice
