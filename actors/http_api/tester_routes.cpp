// dice test's HTTP routes (seed 004's REST API): project blobs between
// nodes, evaluations, the network view. Registered by http_api's
// constructor.
#include "http_api/http_api.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include <httplib.h>

#include "common/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/status_json.hpp"
#include "http_api/tester_stats.hpp"
#include "tester/blob_auth.hpp"
#include "evaluation/evaluation_service.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dice {

namespace {

void answer(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace),
                  "application/json");
}

} // namespace

void http_api::tester_routes() {
  auto& s = *server_;
  auto parts = node_.tester();
  const auto& tcfg = parts->cfg;
  // Project uploads may be larger than other bodies (see the pre-routing
  // check in routes(), which keeps 256 KiB for every other route).
  upload_limit_ = std::max<std::uint64_t>(256 * 1024, tcfg.max_upload_bytes);
  s.set_payload_max_length(upload_limit_);

  // Blob requests prove the cluster key (an HMAC over method and name).
  auto authorized = [this, parts](const char* method, const std::string& sha,
                                  const httplib::Request& req, httplib::Response& res) {
    if (blob_auth_ok(*parts->keys->get(), method, sha,
                     req.get_header_value(blob_auth_header)))
      return true;
    ++unauthorized_;
    answer(res, 401, error_json("blob requests must carry the HMAC of a cluster key "
                                "this node holds"));
    return false;
  };
  s.Get(R"(/blobs/([0-9a-f]{64}))", [parts, authorized](const httplib::Request& req,
                                                         httplib::Response& res) {
    auto sha = req.matches[1].str();
    if (!authorized("GET", sha, req, res))
      return;
    auto path = parts->blobs->use(sha);
    std::error_code ec;
    auto size = path.empty() ? 0 : fs::file_size(path, ec);
    if (path.empty() || ec)
      return answer(res, 404, error_json("no blob " + sha + " on this node"));
    auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
    res.set_content_provider(size, "application/octet-stream",
                             [in](size_t offset, size_t length, httplib::DataSink& sink) {
                               std::vector<char> buf(std::min<size_t>(length, 64 * 1024));
                               in->seekg(static_cast<std::streamoff>(offset));
                               in->read(buf.data(), static_cast<std::streamsize>(buf.size()));
                               if (in->gcount() <= 0)
                                 return false;
                               sink.write(buf.data(), static_cast<size_t>(in->gcount()));
                               return true;
                             });
  });
  s.Put(R"(/blobs/([0-9a-f]{64}))", [this, parts, authorized](const httplib::Request& req,
                                                               httplib::Response& res) {
    auto sha = req.matches[1].str();
    if (!authorized("PUT", sha, req, res))
      return;
    std::string err;
    if (parts->blobs->has(sha))
      return answer(res, 200, {{"blob", sha}});
    if (parts->blobs->put(req.body, err, sha).empty()) {
      ++bad_requests_;
      return answer(res, 400, error_json(err));
    }
    answer(res, 201, {{"blob", sha}});
  });

  auto service = std::make_shared<evaluation_service>(sys_, node_);
  s.Post("/evaluation", [this, parts, service](const httplib::Request& req,
                                               httplib::Response& res) {
    auto bad = [&](int status, const std::string& why) {
      ++bad_requests_;
      answer(res, status, error_json(why));
    };
    // Options: a JSON body ({"url": …, …}), or query parameters beside an
    // uploaded archive.
    bool is_json = req.get_header_value("Content-Type").rfind("application/json", 0) == 0;
    std::string err;
    std::optional<evaluation_request> ask_for;
    if (is_json) {
      ask_for = parse_evaluation_json(req.body, parts->cfg, err);
    } else {
      json opts = json::object();
      for (auto& [k, v] : req.params)
        opts[k] = v;
      ask_for = parse_evaluation_request(opts, parts->cfg, err);
    }
    if (!ask_for)
      return bad(400, err);
    std::string sha;
    if (is_json) {
      sha = service->store_clone(ask_for->url, err);
      if (ask_for->name.empty())
        ask_for->name = fs::path(ask_for->url).filename().string();
    } else {
      sha = service->store_upload(req.body, err);
    }
    if (sha.empty())
      return bad(400, err);
    auto r = service->submit(std::move(*ask_for), sha);
    using refusal = evaluation_receipt::refusal;
    switch (r.refused) {
    case refusal::bad_project:
      return bad(400, r.error);
    case refusal::busy:
      return answer(res, 503, error_json(r.error));
    case refusal::queue_full:
      ++submits_refused_;
      res.set_header("Retry-After", "1");
      return answer(res, 429, error_json(r.error));
    case refusal::none:
      break;
    }
    answer(res, r.replicated ? 201 : 202,
           {{"id", r.id}, {"modules", r.modules}, {"blob", r.blob},
            {"blob_copies", r.blob_copies}, {"replicated", r.replicated}});
  });

  s.Get("/evaluation", [service](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto all = service->all(err);
    if (!err.empty())
      return answer(res, 503, error_json("node busy: " + err));
    auto list = json::array();
    for (auto& [e, rows] : all)
      list.push_back(evaluation_summary(e, rows));
    answer(res, 200, {{"evaluations", std::move(list)}});
  });

  s.Get(R"(/evaluation/([^/]+))", [service](const httplib::Request& req,
                                            httplib::Response& res) {
    std::string err;
    auto id = req.matches[1].str();
    auto report = service->report(id, err);
    if (!report && !err.empty())
      return answer(res, 503, error_json("node busy: " + err));
    if (!report)
      return answer(res, 404, error_json("no evaluation " + id));
    answer(res, 200, *report);
  });

  s.Get("/network", [this, parts](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto v = query<std::vector<node_view>>(sys_, node_.members(), err, nodes_atom_v);
    if (!v)
      return answer(res, 503, error_json("node busy: " + err));
    auto now = wall_clock_ms();
    auto list = json::array();
    for (auto& n : *v) {
      json j{{"id", n.id}, {"addr", n.addr}, {"state", to_string(n.state)},
             {"last_seen_ms", n.last_seen_ms}};
      tester_peer p;
      if (n.id == node_.config().id) {
        if (!parts->http.empty())
          j["url"] = parts->api_url();
        j["http"] = parts->http;
        j["runs_tests"] = parts->cfg.enabled;
      } else if (parts->peers->find(n.id, now, p)) {
        j["url"] = p.url();
        j["http"] = p.http;
        j["runs_tests"] = p.runs_tests;
      }
      list.push_back(std::move(j));
    }
    answer(res, 200, {{"self", node_.config().id}, {"nodes", std::move(list)}});
  });
}

json tester_stats_json(const tester_parts& t) {
  const auto& c = t.runner->counters();
  auto b = t.blobs->stats();
  return {{"runs_tests", t.cfg.enabled},
          {"modules", c.modules.load()},
          {"run", c.tests.load()},
          {"passed", c.passed.load()},
          {"failed", c.failed.load()},
          {"blobs_fetched", c.fetched.load()},
          {"blob_fetch_errors", c.fetch_errors.load()},
          {"workspaces_left", c.workspaces_left.load()},
          {"workspaces_swept", c.workspaces_swept.load()},
          {"blobs", {{"held", b.blobs}, {"bytes", b.bytes}, {"stored", b.stored},
                     {"evicted", b.evicted}, {"rejected", b.rejected}}}};
}

} // namespace dice
