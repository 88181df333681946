// The workflow routes of the HTTP API: POST /workflows submits a graph of
// steps, all or nothing, and answers with every task id at once;
// GET /workflows/ID shows the graph with each step's state. A whole
// workflow is canceled or removed with the bulk routes' workflow filter
// (POST /tasks/cancel?workflow=ID, DELETE /tasks?workflow=ID).
#include <httplib.h>

#include "common/ask.hpp"
#include "common/time.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/request_body.hpp"
#include "http_api/status_json.hpp"
#include "http_api/workflow_json.hpp"
#include "vocabulary/runner_capabilities.hpp"

namespace dice {

void http_api::workflow_routes() {
  auto& s = *server_;
  s.Post("/workflows", [this](const httplib::Request& req, httplib::Response& res,
                              const httplib::ContentReader& read) {
    std::string err;
    auto runners = query<std::vector<runner_capabilities>>(sys_, node_.queue(), err,
                                                         runners_atom_v);
    if (!runners)
      return send_json(res, 503, error_json("node busy: " + err));
    const auto& api = node_.config().api;
    auto w = parse_workflow(read_body(req, read),
                            api.wait_for_runner ? std::vector<std::string>{}
                                                : kinds_run(*runners),
                            fresh_workflow_id(), err, wall_clock_ms());
    if (w && !api.wait_for_runner)
      for (const auto& spec : w->specs)
        if (!anyone_runs(*runners, spec)) {
          err = "step '" + spec.step() + "': shell: no live member allows its "
                "program (--shell-allow)";
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
