// Bulk changes of the task API: POST /tasks/cancel and DELETE /tasks cancel
// or remove every task a filter names (state, kind, node, ids; the filters
// of GET /tasks), up to a page of max_task_page at a time, with a dry run
// that only counts. A change of every task at once, with no filter, is
// refused: it is more often a mistake than a wish.
#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/http_api.hpp"
#include "http_api/json_reply.hpp"
#include "http_api/request_body.hpp"
#include "http_api/status_json.hpp"
#include "http_api/task_list.hpp"
#include "known_tasks/task_state.hpp"

namespace dice {

void http_api::bulk_routes() {
  auto& s = *server_;
  auto bulk = [this](auto atom, const char* verb) {
    return [this, atom, verb](const httplib::Request& req, httplib::Response& res) {
      auto params = req.params;
      bool dry_run = params.erase("dry_run") > 0;
      if (params.empty()) {
        ++bad_requests_;
        return send_json(res, 400, error_json(
          std::string("name the tasks to be ") + verb
          + ": state, kind, node or ids (every task at once is refused)"));
      }
      std::string err;
      auto list = parse_task_list(params, err);
      if (list && (list->with_result || list->by_node))
        err = "'with' and 'group' do not apply to a bulk change";
      if (!list || !err.empty()) {
        ++bad_requests_;
        return send_json(res, 400, error_json(err));
      }
      if (!list->query.limit)
        list->query.limit = max_task_page + 1;
      auto page = *list->query.limit - 1;
      auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err,
                                               tasks_atom_v, list->query);
      if (!rows)
        return send_json(res, 503, error_json("node busy: " + err));
      bool cancel = std::string(verb) == "canceled";
      std::size_t matched = 0, changed = 0;
      for (std::size_t i = 0; i < rows->size() && i < page; ++i) {
        const auto& r = (*rows)[i];
        auto phase = r.state.phase();
        // What the change cannot apply to is not counted as matched.
        if (!r.has_spec || phase == wire::REMOVED
            || (cancel && is_terminal(phase)))
          continue;
        ++matched;
        if (dry_run)
          continue;
        auto ok = ask<bool>(sys_, node_.queue(), err, atom, r.spec.id());
        if (!ok)
          return send_json(res, 503, error_json("node busy after "
                                                + std::to_string(changed) + " "
                                                + verb + ": " + err));
        changed += *ok ? 1 : 0;
      }
      send_json(res, 200, {{"matched", matched},
                           {verb, changed},
                           {"dry_run", dry_run},
                           {"more", rows->size() > page}});
    };
  };
  s.Post("/tasks/cancel",
         [cancel = bulk(cancel_atom_v, "canceled")](
           const httplib::Request& req, httplib::Response& res,
           const httplib::ContentReader& read) {
           read_body(req, read); // none expected; read so the connection stays usable
           cancel(req, res);
         });
  s.Delete("/tasks", bulk(remove_atom_v, "removed"));
}

} // namespace dice
