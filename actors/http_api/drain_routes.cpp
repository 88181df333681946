// Draining a node: POST /drain makes it claim nothing new while it finishes
// what it holds (with {"leave": true} it stops once it holds nothing);
// DELETE /drain makes it claim again. GET /stats says "draining" and what
// it still holds.
#include <chrono>

#include <caf/send.hpp>
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/status_json.hpp"

namespace dice {

void http_api::drain_routes() {
  auto& s = *server_;
  s.Post("/drain", [this](const httplib::Request& req, httplib::Response& res) {
    bool leave = false;
    if (!req.body.empty()) {
      auto j = nlohmann::json::parse(req.body, nullptr, false);
      if (j.is_discarded() || !j.is_object()
          || (j.contains("leave") && !j["leave"].is_boolean())) {
        ++bad_requests_;
        return send_json(res, 400, error_json(
          "the body is optional: {\"leave\": true|false}"));
      }
      leave = j.value("leave", false);
    }
    if (leave && !on_leave_) {
      ++bad_requests_;
      return send_json(res, 400, error_json(
        "this node cannot stop itself (an embedded node): drain it without "
        "\"leave\" and stop it from its program"));
    }
    caf::anon_send(node_.queue(), drain_atom_v, true);
    if (leave)
      leave_when_drained();
    send_json(res, 200, {{"draining", true}, {"leave", leave}});
  });
  s.Delete("/drain", [this](const httplib::Request&, httplib::Response& res) {
    leaving_ = false;
    caf::anon_send(node_.queue(), drain_atom_v, false);
    send_json(res, 200, {{"draining", false}});
  });
}

void http_api::leave_when_drained() {
  if (leaving_.exchange(true))
    return; // already watching
  if (leaver_.joinable())
    leaver_.join();
  // Bounded by the node's life: stop() ends it, as does an undrain.
  leaver_ = std::thread([this] {
    while (leaving_ && !stopping_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::string err;
      auto q = query<queue_counters>(sys_, node_.queue(), err, stats_atom_v);
      if (q && q->draining > 0 && q->seats_held == 0 && leaving_) {
        on_leave_();
        return;
      }
    }
  });
}

} // namespace dice
