// The schedule routes of the HTTP API: POST /schedules adds a periodic
// schedule (a record every node holds), GET /schedules lists them, DELETE
// /schedules/NAME removes one. Each tick becomes a task any node may run.
#include <httplib.h>

#include "common/ask.hpp"
#include "common/time.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/live_runners.hpp"
#include "http_api/request_body.hpp"
#include "http_api/schedule_json.hpp"
#include "http_api/status_json.hpp"
#include "known_tasks/schedules.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

void http_api::schedule_routes() {
  auto& s = *server_;
  s.Post("/schedules", [this](const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& read) {
    auto runners = this->runners();
    std::string err;
    // Any kind parses: runners.problem refuses one nobody runs.
    auto record = parse_schedule(read_body(req, read), {}, wall_clock_ms(), err);
    if (record)
      if (auto why = runners.problem(record->schedule().task()); !why.empty()) {
        err = "task: " + why;
        record.reset();
      }
    if (!record) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                             task_query::of(record->id()));
    if (!rows)
      return send_json(res, 503, error_json("node busy: " + err));
    const auto& name = record->schedule().name();
    if (!rows->empty() && rows->front().has_spec) {
      if (is_terminal(rows->front().state.phase()))
        return send_json(res, 409, error_json(
          "schedule " + name + " was removed; its name is free again once "
          "its retention passes (--keep-finished-ms)"));
      return send_json(res, 200, {{"schedule", name}, {"id", record->id()},
                                  {"existing", true}});
    }
    enqueue({std::move(*record)}, true, res, {{"schedule", name}});
  });
  s.Get("/schedules", [this](const httplib::Request&, httplib::Response& res) {
    task_query q;
    q.kind = schedule_kind;
    std::string err;
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v, q);
    if (!rows)
      return send_json(res, 503, error_json("node busy: " + err));
    auto list = nlohmann::json::array();
    auto now = wall_clock_ms();
    for (const auto& r : *rows)
      if (r.has_spec && r.spec.has_schedule() && !is_terminal(r.state.phase()))
        list.push_back(schedule_json(r.spec, now));
    send_json(res, 200, {{"schedules", list}});
  });
  s.Delete(R"(/schedules/([^/]+))", [this](const httplib::Request& req,
                                           httplib::Response& res) {
    auto name = req.matches[1].str();
    auto id = schedule_record_id(name);
    std::string err;
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                             task_query::of(id));
    if (!rows)
      return send_json(res, 503, error_json("node busy: " + err));
    if (rows->empty() || !rows->front().has_spec
        || is_terminal(rows->front().state.phase()))
      return send_json(res, 404, error_json("no schedule " + name));
    auto ok = ask<bool>(sys_, node_.queue(), err, remove_atom_v, id);
    if (!ok)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 200, {{"schedule", name}, {"removed", *ok}});
  });
}

} // namespace dice
