#include "http_api/http_api.hpp"

#include <chrono>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <httplib.h>

#include "http_api/status_json.hpp"

namespace dice {

namespace {

constexpr auto ask_timeout = std::chrono::seconds(2);

void reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

/// Asks `who` and hands the answer to `use`; 503 if no answer in time.
template <class Handle, class Atom, class Use>
void ask(caf::actor_system& sys, const Handle& who, Atom atom,
         httplib::Response& res, Use use) {
  caf::scoped_actor self{sys};
  self->request(who, ask_timeout, atom)
    .receive(use, [&](caf::error& err) {
      reply(res, 503, error_json("node busy: " + sys.render(err)));
    });
}

} // namespace

http_api::http_api(caf::actor_system& sys, const node& n, endpoint where)
  : sys_(sys), node_(n), server_(std::make_unique<httplib::Server>()) {
  routes();
  if (!server_->bind_to_port(where.host.c_str(), where.port))
    throw std::runtime_error("cannot bind HTTP " + where.to_string()
                             + ": address in use or not available");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

http_api::~http_api() {
  stop();
}

void http_api::stop() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

void http_api::routes() {
  auto& s = *server_;
  s.set_pre_routing_handler([this](const httplib::Request&, httplib::Response&) {
    ++requests_;
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, health_json(node_.config().id));
  });
  s.Get("/nodes", [this](const httplib::Request&, httplib::Response& res) {
    ask(sys_, node_.members(), nodes_atom_v, res,
        [&](std::vector<node_view>& v) {
          reply(res, 200, nodes_json(node_.config().id, v));
        });
  });
  s.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
    ask(sys_, node_.bridge(), stats_atom_v, res, [&](bridge_counters& c) {
      nlohmann::json body;
      body["id"] = node_.config().id;
      body["wire"] = bridge_json(c);
      body["http"] = {{"requests", requests_.load()},
                      {"bad_requests", bad_requests_.load()}};
      reply(res, 200, body);
    });
  });
  // Anything unrouted (unknown path or method) gets a JSON error, not HTML.
  s.set_error_handler([this](const httplib::Request& req,
                             httplib::Response& res) {
    ++bad_requests_;
    auto status = res.status == 405 ? 405 : 404;
    reply(res, status, error_json("no route for " + req.method + " " + req.path));
  });
}

} // namespace dice
