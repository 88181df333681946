// The workflow routes of the HTTP API: POST /workflows submits a graph of
// steps, all or nothing, and answers with every task id at once;
// GET /workflows lists the workflows the replica holds, newest first;
// GET /workflows/ID shows the graph with each step's state. A whole
// workflow is canceled or removed with the bulk routes' workflow filter
// (POST /tasks/cancel?workflow=ID, DELETE /tasks?workflow=ID).
#include <httplib.h>

#include "common/ask.hpp"
#include "common/time.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/live_runners.hpp"
#include "http_api/request_body.hpp"
#include "http_api/status_json.hpp"
#include "http_api/task_list.hpp"
#include "http_api/workflow_json.hpp"
#include "known_tasks/state_names.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

namespace {

/// The workflows a GET /workflows lists by default, and at most.
constexpr std::size_t default_workflow_page = 20;
constexpr std::size_t max_workflow_page = 1000;

} // namespace

void http_api::workflow_routes() {
  auto& s = *server_;
  s.Post("/workflows", [this](const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& read) {
    auto runners = this->runners();
    std::string err;
    // Any kind parses: runners.problem refuses one nobody runs.
    auto w = parse_workflow(read_body(req, read), {}, fresh_workflow_id(), err,
                            wall_clock_ms());
    if (w)
      for (const auto& spec : w->specs)
        if (auto why = runners.problem(spec); !why.empty()) {
          err = "step '" + spec.step() + "': " + why;
          w.reset();
          break;
        }
    if (!w) {
      ++bad_requests_;
      return send_json(res, 400, error_json(err));
    }
    // Its tasks' ids come from keys (the workflow's id and the step's
    // name): submitted again, the tasks held already are not sent again.
    enqueue(std::move(w->specs), true, res,
            {{"workflow", w->id}, {"steps", w->steps}});
  });
  s.Get("/workflows", [this](const httplib::Request& req, httplib::Response& res) {
    auto limit = default_workflow_page;
    for (const auto& [name, value] : req.params) {
      auto n = name == "limit" ? parse_page_limit(value, max_workflow_page) : std::nullopt;
      if (!n) {
        ++bad_requests_;
        return send_json(res, 400,
                         error_json(name != "limit"
                                      ? "unknown parameter '" + name + "' (known: limit)"
                                      : "limit must be an integer from 1 to "
                                          + std::to_string(max_workflow_page)));
      }
      limit = *n;
    }
    // The tasks of every workflow: it walks the replica as the unpaged
    // GET /tasks does, and answers a line per workflow.
    std::string err;
    task_query q;
    q.in_workflows = true;
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v, q);
    if (!rows)
      return send_json(res, 503, error_json("node busy: " + err));
    send_json(res, 200, workflow_list_json(*rows, limit));
  });
  s.Get(R"(/workflows/([^/]+))", [this](const httplib::Request& req,
                                        httplib::Response& res) {
    auto id = req.matches[1].str();
    task_query q;
    q.workflow = id;
    std::string err;
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v, q);
    if (!rows)
      return send_json(res, 503, error_json("node busy: " + err));
    if (rows->empty())
      return send_json(res, 404, error_json("no workflow " + id));
    send_json(res, 200, workflow_json(id, *rows));
  });
}

} // namespace dice
