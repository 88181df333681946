#include "evaluation/evaluation_service.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include <unistd.h>

#include "common/ask.hpp"
#include "node/node.hpp"
#include "tester/blob_client.hpp"
#include "tester/project_archive.hpp"
#include "tester/sandbox.hpp"
#include "tester/sha256.hpp"
#include "tester/tester_node.hpp"
#include "vocabulary/runner_capabilities.hpp"

namespace fs = std::filesystem;

namespace dice {

namespace {

std::atomic<std::uint64_t> evaluations_accepted{0};

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
    if (push_blob(p.url(), sha, path, {t.keys->get()->primary_key(), t.tls_trust_file},
                  err))
      took.push_back(p);
  }
  return took;
}

} // namespace

evaluation_service::evaluation_service(caf::actor_system& sys, const node& n)
  : sys_(sys), node_(n), parts_(*n.tester()) {
}

std::string evaluation_service::store_upload(const std::string& bytes, std::string& error) {
  if (bytes.empty()) {
    error = "empty upload: send the project as a .tar.gz, .tar or .zip";
    return {};
  }
  return parts_.blobs->put(bytes, error);
}

std::string evaluation_service::store_directory(const std::string& dir,
                                                std::string& error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + ": no such directory";
    return {};
  }
  auto packed = parts_.blobs->temp_path();
  if (!pack_directory(dir, packed, error)) {
    fs::remove(packed, ec);
    return {};
  }
  auto sha = sha256_file_hex(packed);
  if (!parts_.blobs->adopt(packed, sha, error)) {
    fs::remove(packed, ec);
    return {};
  }
  return sha;
}

std::string evaluation_service::store_clone(const std::string& url, std::string& error) {
  const auto& t = parts_;
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
  if (!out.exited_ok())
    error = "git clone " + url + ": " + out.describe(req.timeout_ms) + ": "
            + tail_of(out.output, 512);
  else
    sha = store_directory(templ + "/src", error);
  remove_tree(templ);
  return sha;
}

std::size_t evaluation_service::runner_nodes() const {
  auto peers = parts_.peers->live(wall_clock_ms());
  auto n = static_cast<std::size_t>(
    std::count_if(peers.begin(), peers.end(), [this](const tester_peer& p) {
      return p.runs_tests && p.id != node_.config().id;
    }));
  return n + (parts_.cfg.enabled ? 1 : 0);
}

evaluation_receipt evaluation_service::submit(evaluation_request ask,
                                              const std::string& sha) {
  using refusal = evaluation_receipt::refusal;
  evaluation_receipt out;
  auto refuse = [&](refusal why, std::string error) {
    out.refused = why;
    out.error = std::move(error);
    return out;
  };
  // Held while the modules are found and the blob is copied to peers.
  auto pin = parts_.blobs->pin(sha);
  const auto& blob_path = pin.path();
  if (blob_path.empty())
    return refuse(refusal::bad_project, "no project blob " + sha + " on this node");
  std::string err;
  std::vector<std::string> modules = ask.modules;
  std::map<std::string, std::uint64_t> priors;
  if (modules.empty()) {
    auto found = parts_.runner->find_modules(blob_path, ask.runner, ask.split,
                                             ask.timeout_s * 1000LL, err, &priors);
    if (!found)
      return refuse(refusal::bad_project, "not a test project: " + err);
    modules = std::move(*found);
  }
  if (modules.size() > tester_max_modules)
    return refuse(refusal::bad_project,
                  "the project has " + std::to_string(modules.size())
                    + " modules; at most " + std::to_string(tester_max_modules));
  // Durations of earlier runs of the same project: longest first.
  std::vector<std::pair<evaluation_record, std::vector<module_row>>> earlier;
  if (!ask.name.empty())
    earlier = all(err);
  evaluation_record e;
  auto now = wall_clock_ms();
  e.id = new_evaluation_id(node_.config().id, now, ++evaluations_accepted);
  e.name = ask.name;
  e.blob = sha;
  std::error_code ec;
  e.blob_bytes = fs::file_size(blob_path, ec);
  e.runner = ask.runner;
  e.split = ask.split;
  e.timeout_s = ask.timeout_s;
  e.reruns = ask.reruns;
  e.modules = static_cast<std::uint32_t>(modules.size());
  auto durations = remembered_durations(e.name, earlier);
  // pytest runs several modules in one process; the other runners one each.
  std::vector<std::vector<std::string>> groups;
  if (e.runner == "pytest") {
    groups = module_groups(modules, durations, priors, runner_nodes());
  } else {
    for (auto& m : modules)
      groups.push_back({m});
  }
  e.tasks = static_cast<std::uint32_t>(groups.size());
  e.origin = node_.config().id;
  e.submitted_ms = now;
  // Copies first: the evaluation must survive this node's death.
  std::vector<std::string> sources;
  out.blob_copies = 1;
  if (!parts_.http.empty())
    sources.push_back(parts_.api_url());
  for (auto& p : replicate_blob(parts_, sha)) {
    sources.push_back(p.url());
    ++out.blob_copies;
  }
  auto specs = evaluation_specs(e, groups, sources, durations, priors);
  const auto& api = node_.config().api;
  auto accept = std::chrono::milliseconds(api.submit_accept_ms);
  auto receipt = ask_within<submit_receipt>(sys_, node_.queue(), accept + http_ask_timeout,
                                            err, submit_atom_v, std::move(specs),
                                            caf::make_timestamp() + accept);
  if (!receipt)
    return refuse(refusal::busy, "node busy, evaluation not enqueued: " + err);
  if (!receipt->refused.empty())
    return refuse(refusal::queue_full, "evaluation not enqueued: " + receipt->refused);
  auto replicated = ask_within<bool>(sys_, node_.queue(),
                                     std::chrono::milliseconds(api.submit_replicated_ms),
                                     err, submit_atom_v, receipt->batch);
  out.id = e.id;
  out.modules = e.modules;
  out.blob = sha;
  out.replicated = replicated.value_or(false);
  return out;
}

std::optional<std::vector<module_row>>
evaluation_service::module_rows(const evaluation_record& e, std::string& err) {
  task_query q;
  for (std::uint32_t i = 0; i < e.tasks; ++i)
    q.ids.push_back(module_task_id(e.id, i));
  auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v, q);
  if (!rows)
    return std::nullopt;
  std::map<std::string, const task_row*> by_id;
  for (auto& r : *rows)
    by_id[r.spec.id()] = &r;
  std::vector<module_row> out(e.tasks);
  for (std::uint32_t i = 0; i < e.tasks; ++i) {
    auto it = by_id.find(q.ids[i]);
    if (it == by_id.end() || !it->second->has_spec)
      continue;
    out[i] = module_row{true, it->second->spec, it->second->state};
  }
  return out;
}

std::vector<std::pair<evaluation_record, std::vector<module_row>>>
evaluation_service::all(std::string& err) {
  std::vector<std::pair<evaluation_record, std::vector<module_row>>> out;
  auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v,
                                           task_query{});
  if (!rows)
    return out;
  for (auto& r : *rows) {
    if (!r.has_spec || r.spec.kind() != evaluation_kind)
      continue;
    auto e = decode_evaluation(r.spec.payload());
    if (!e)
      continue;
    auto modules = module_rows(*e, err);
    if (modules)
      out.emplace_back(std::move(*e), std::move(*modules));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.submitted_ms, a.first.id)
           < std::tie(b.first.submitted_ms, b.first.id);
  });
  return out;
}

std::optional<nlohmann::json> evaluation_service::report(const std::string& id,
                                                         std::string& err) {
  task_query q;
  q.ids = {id};
  auto rows = query<std::vector<task_row>>(sys_, node_.queue(), err, tasks_atom_v, q);
  if (!rows)
    return std::nullopt;
  std::optional<evaluation_record> e;
  if (!rows->empty() && rows->front().has_spec && rows->front().spec.kind() == evaluation_kind)
    e = decode_evaluation(rows->front().spec.payload());
  if (!e)
    return std::nullopt;
  auto modules = module_rows(*e, err);
  if (!modules)
    return std::nullopt;
  return evaluation_report(*e, *modules);
}

} // namespace dice
