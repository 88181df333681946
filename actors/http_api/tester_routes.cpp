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

#include "http_api/ask.hpp"
#include "http_api/guarded_server.hpp"
#include "http_api/status_json.hpp"
#include "http_api/tester_stats.hpp"
#include "tester/blob_auth.hpp"
#include "tester/blob_client.hpp"
#include "tester/evaluation_plan.hpp"
#include "tester/project_archive.hpp"
#include "tester/sandbox.hpp"
#include "tester/sha256.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dice {

namespace {

void answer(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace),
                  "application/json");
}

std::atomic<std::uint64_t> evaluations_accepted{0};

/// The project behind a {"url": …}: `git clone --depth 1` (as the runner's
/// user when the node is root), packed into a blob. Empty with `error`.
std::string clone_into_blob(const tester_parts& t, const std::string& url,
                            std::string& error) {
  if (url.empty() || url[0] == '-') {
    error = "url must name a git repository";
    return {};
  }
  std::error_code ec;
  fs::create_directories(t.cfg.work_dir, ec);
  auto templ = t.cfg.work_dir + "/clone-XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "cannot make a directory in " + t.cfg.work_dir;
    return {};
  }
  // A local repository belongs to another user than the runner's, and git
  // reads it only if told it is safe, in a global (protected) config: the
  // clone's HOME is its directory. The clone is only read.
  std::ofstream(templ + "/.gitconfig") << "[safe]\n\tdirectory = *\n";
  bool root = ::geteuid() == 0;
  if (root)
    give_tree(templ, 65534, 65534);
  sandbox_request req;
  req.argv = {"git", "clone", "--depth", "1", "--quiet", "--", url, templ + "/src"};
  req.cwd = templ;
  req.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + templ,
             "GIT_TERMINAL_PROMPT=0", "LANG=C.UTF-8"};
  req.timeout_ms = 300'000;
  req.max_output_bytes = 4096;
  req.drop_privileges = root;
  cancel_token never;
  auto out = run_sandboxed(req, never);
  std::string sha;
  if (!out.exited_ok()) {
    error = "git clone " + url + ": " + out.describe(req.timeout_ms) + ": "
            + tail_of(out.output, 512);
  } else {
    auto packed = t.blobs->temp_path();
    if (pack_directory(templ + "/src", packed, error)) {
      sha = sha256_file_hex(packed);
      if (!t.blobs->adopt(packed, sha, error))
        sha.clear();
    } else {
      fs::remove(packed, ec);
    }
  }
  remove_tree(templ);
  return sha;
}

/// Copies the blob to up to cfg.blob_replicas peers (those that run tests
/// first) and returns the ids and HTTP addresses of those that took it.
std::vector<tester_peer> replicate_blob(const tester_parts& t, const std::string& sha) {
  auto peers = t.peers->live(wall_clock_ms());
  std::stable_sort(peers.begin(), peers.end(), [](const tester_peer& a,
                                                  const tester_peer& b) {
    return a.runs_tests > b.runs_tests;
  });
  std::vector<tester_peer> took;
  auto path = t.blobs->use(sha);
  for (auto& p : peers) {
    if (took.size() >= t.cfg.blob_replicas || p.id == t.node_id || path.empty())
      break;
    std::string err;
    if (push_blob(p.http, sha, path, t.cluster_key, err))
      took.push_back(p);
  }
  return took;
}

std::optional<std::vector<module_row>>
module_rows(caf::actor_system& sys, const node& n, const evaluation_record& e,
            std::string& err) {
  task_query q;
  for (std::uint32_t i = 0; i < e.modules; ++i)
    q.ids.push_back(module_task_id(e.id, i));
  auto rows = query<std::vector<task_row>>(sys, n.queue(), err, tasks_atom_v, q);
  if (!rows)
    return std::nullopt;
  std::map<std::string, const task_row*> by_id;
  for (auto& r : *rows)
    by_id[r.spec.id()] = &r;
  std::vector<module_row> out(e.modules);
  for (std::uint32_t i = 0; i < e.modules; ++i) {
    auto it = by_id.find(q.ids[i]);
    if (it == by_id.end() || !it->second->has_spec)
      continue;
    out[i] = module_row{true, it->second->spec, it->second->state};
  }
  return out;
}

std::vector<std::pair<evaluation_record, std::vector<module_row>>>
evaluations(caf::actor_system& sys, const node& n, std::string& err) {
  std::vector<std::pair<evaluation_record, std::vector<module_row>>> out;
  auto rows = query<std::vector<task_row>>(sys, n.queue(), err, tasks_atom_v,
                                           task_query{});
  if (!rows)
    return out;
  for (auto& r : *rows) {
    if (!r.has_spec || r.spec.kind() != "evaluation")
      continue;
    auto e = decode_evaluation(r.spec.payload());
    if (!e)
      continue;
    auto modules = module_rows(sys, n, *e, err);
    if (modules)
      out.emplace_back(std::move(*e), std::move(*modules));
  }
  return out;
}

} // namespace

void http_api::tester_routes() {
  auto& s = *server_;
  auto parts = node_.tester();
  const auto& tcfg = parts->cfg;
  // Project uploads may be larger than other bodies (see the pre-routing
  // check in routes(), which keeps 256 KiB for every other route).
  s.set_payload_max_length(std::max<std::uint64_t>(256 * 1024, tcfg.max_upload_bytes));

  // Blob requests prove the cluster key (an HMAC over method and name).
  auto authorized = [this, parts](const char* method, const std::string& sha,
                                  const httplib::Request& req, httplib::Response& res) {
    if (blob_auth_ok(parts->cluster_key, method, sha, req.get_header_value(blob_auth_header)))
      return true;
    ++unauthorized_;
    answer(res, 401, error_json("blob requests must carry the cluster key's HMAC"));
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

  s.Post("/evaluation", [this, parts](const httplib::Request& req, httplib::Response& res) {
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
      sha = clone_into_blob(*parts, ask_for->url, err);
      if (sha.empty())
        return bad(400, err);
      if (ask_for->name.empty())
        ask_for->name = fs::path(ask_for->url).filename().string();
    } else {
      if (req.body.empty())
        return bad(400, "empty upload: send the project as a .tar.gz, .tar or .zip");
      sha = parts->blobs->put(req.body, err);
      if (sha.empty())
        return bad(400, err);
    }
    auto blob_path = parts->blobs->use(sha);
    std::vector<std::string> modules = ask_for->modules;
    if (modules.empty()) {
      auto found = parts->runner->find_modules(blob_path, ask_for->split,
                                               ask_for->timeout_s * 1000LL, err);
      if (!found)
        return bad(400, "not a test project: " + err);
      modules = std::move(*found);
    }
    if (modules.size() > defaults::tester_max_modules)
      return bad(400, "the project has " + std::to_string(modules.size())
                        + " modules; at most " + std::to_string(defaults::tester_max_modules));
    // Durations of earlier runs of the same project: longest first.
    std::vector<std::pair<evaluation_record, std::vector<module_row>>> earlier;
    if (!ask_for->name.empty())
      earlier = evaluations(sys_, node_, err);
    evaluation_record e;
    auto now = wall_clock_ms();
    e.id = new_evaluation_id(node_.config().id, now, ++evaluations_accepted);
    e.name = ask_for->name;
    e.blob = sha;
    std::error_code ec;
    e.blob_bytes = fs::file_size(blob_path, ec);
    e.runner = ask_for->runner;
    e.split = ask_for->split;
    e.timeout_s = ask_for->timeout_s;
    e.reruns = ask_for->reruns;
    e.modules = static_cast<std::uint32_t>(modules.size());
    e.origin = node_.config().id;
    e.submitted_ms = now;
    // Copies first: the evaluation must survive this node's death.
    std::vector<std::string> sources, holders{node_.config().id};
    if (!parts->http.empty())
      sources.push_back(parts->http);
    for (auto& p : replicate_blob(*parts, sha)) {
      sources.push_back(p.http);
      holders.push_back(p.id);
    }
    auto specs = evaluation_specs(e, modules, sources,
                                  remembered_durations(e.name, earlier));
    const auto& api = node_.config().api;
    auto accept = std::chrono::milliseconds(api.submit_accept_ms);
    auto receipt = ask_within<submit_receipt>(sys_, node_.queue(), accept + http_ask_timeout,
                                              err, submit_atom_v, std::move(specs),
                                              caf::make_timestamp() + accept);
    if (!receipt)
      return answer(res, 503, error_json("node busy, evaluation not enqueued: " + err));
    if (!receipt->refused.empty()) {
      ++submits_refused_;
      res.set_header("Retry-After", "1");
      return answer(res, 429, error_json("evaluation not enqueued: " + receipt->refused));
    }
    auto replicated = ask_within<bool>(sys_, node_.queue(),
                                       std::chrono::milliseconds(api.submit_replicated_ms),
                                       err, submit_atom_v, receipt->batch);
    answer(res, replicated && *replicated ? 201 : 202,
           {{"id", e.id}, {"modules", e.modules}, {"blob", sha},
            {"blob_copies", holders.size()}, {"replicated", replicated.value_or(false)}});
  });

  s.Get("/evaluation", [this](const httplib::Request&, httplib::Response& res) {
    std::string err;
    auto all = evaluations(sys_, node_, err);
    if (!err.empty())
      return answer(res, 503, error_json("node busy: " + err));
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first.submitted_ms, a.first.id)
             < std::tie(b.first.submitted_ms, b.first.id);
    });
    auto list = json::array();
    for (auto& [e, rows] : all)
      list.push_back(evaluation_summary(e, rows));
    answer(res, 200, {{"evaluations", std::move(list)}});
  });

  s.Get(R"(/evaluation/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    std::string err;
    auto id = req.matches[1].str();
    auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                             task_query{{id}, std::nullopt});
    if (!rows)
      return answer(res, 503, error_json("node busy: " + err));
    std::optional<evaluation_record> e;
    if (!rows->empty() && rows->front().has_spec && rows->front().spec.kind() == "evaluation")
      e = decode_evaluation(rows->front().spec.payload());
    if (!e)
      return answer(res, 404, error_json("no evaluation " + id));
    auto modules = module_rows(sys_, node_, *e, err);
    if (!modules)
      return answer(res, 503, error_json("node busy: " + err));
    answer(res, 200, evaluation_report(*e, *modules));
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
        j["http"] = parts->http;
        j["runs_tests"] = parts->cfg.enabled;
      } else if (parts->peers->find(n.id, now, p)) {
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
          {"blobs", {{"held", b.blobs}, {"bytes", b.bytes}, {"stored", b.stored},
                     {"evicted", b.evicted}, {"rejected", b.rejected}}}};
}

} // namespace dice
