// dice::embed::node: the public facade over dice::node (actors/node), in
// plain types, for programs that embed a node in their own actor system.
#include "dice/node.hpp"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "broadcast_bridge/udp_transport.hpp"
#include "common/caf_setup.hpp"
#include "embed/event_hub.hpp"
#include "http_api/http_api.hpp"
#include "http_api/task_json.hpp"
#include "mutex/lock_name.hpp"
#include "node/node.hpp"
#include "evaluation/evaluation_service.hpp"
#include "tester/tester_node.hpp"

namespace dice::embed {

namespace {

endpoint endpoint_option(const char* name, const std::string& text) {
  std::string err;
  auto ep = parse_endpoint(text, &err);
  if (!ep)
    throw std::invalid_argument(std::string(name) + ": " + err);
  return *ep;
}

task_event to_event(const task_row& r) {
  task_event ev;
  ev.id = r.spec.id();
  ev.kind = r.spec.kind();
  ev.state = state_name(r.state);
  ev.node = r.state.claim().node_id();
  ev.attempts = r.state.attempt();
  if (r.state.phase() == wire::DONE)
    ev.result = r.state.result();
  ev.reason = r.state.reason();
  ev.ready_at_ms = r.state.ready_time_ms();
  if (ev.ready_at_ms == 0 && r.state.attempt() <= 1)
    ev.ready_at_ms = r.spec.enqueue_time_ms();
  ev.started_at_ms = r.state.started_time_ms();
  ev.finished_at_ms = r.state.finished_time_ms();
  return ev;
}

// Feeds the replica's task events into the hub.
task_listener::behavior_type listener_fun(std::shared_ptr<event_hub> hub) {
  return {
    [hub](task_event_atom, const task_row& r) { hub->publish(to_event(r)); },
  };
}

/// The program's on_message callbacks, called from the listener actor.
struct message_callbacks {
  std::mutex mtx;
  std::vector<std::pair<std::string, std::function<void(const message&)>>> list;
};

causal_listener::behavior_type
message_listener_fun(std::shared_ptr<message_callbacks> cbs) {
  return {
    [cbs](causal_atom, const causal_delivery& d) {
      message m{d.topic, d.data, d.origin, d.seq, d.time_ms};
      std::lock_guard<std::mutex> g(cbs->mtx);
      for (auto& [topic, fn] : cbs->list)
        if (topic.empty() || topic == m.topic)
          fn(m);
    },
  };
}

} // namespace

void prepare(caf::actor_system_config& cfg) {
  register_message_types(cfg);
}

struct node::impl {
  caf::actor_system& sys;
  node_config cfg;
  std::shared_ptr<udp_transport> net;
  std::unique_ptr<dice::node> running;
  std::unique_ptr<http_api> api;
  std::unique_ptr<evaluation_service> evaluations;
  std::shared_ptr<event_hub> hub = std::make_shared<event_hub>();
  task_listener listener;
  std::shared_ptr<message_callbacks> messages = std::make_shared<message_callbacks>();

  impl(caf::actor_system& s) : sys(s) {}

  void require(bool started, const char* what) const {
    if ((running != nullptr) != started)
      throw std::logic_error(std::string("dice::embed::node: ") + what
                             + (started ? " needs start() first"
                                        : " must come before start()"));
  }
};

node::node(caf::actor_system& sys, options opts) : impl_(new impl(sys)) {
  auto& c = impl_->cfg;
  c.id = opts.id;
  c.listen = endpoint_option("listen", opts.listen);
  if (!opts.advertise.empty())
    c.advertise = endpoint_option("advertise", opts.advertise);
  for (auto& p : opts.peers)
    c.peers.push_back(endpoint_option("peer", p));
  c.cluster_id = opts.cluster_id;
  c.cluster_key = opts.cluster_key;
  if (opts.http.empty())
    c.http.reset();
  else
    c.http = endpoint_option("http", opts.http);
  c.api.token = opts.http_token;
  c.api.tls_cert_file = opts.http_tls_cert_file;
  c.api.tls_key_file = opts.http_tls_key_file;
  c.queue.slots = opts.slots;
  c.queue.prefetch = opts.prefetch;
  c.queue.max_attempts = opts.max_attempts;
  c.queue.retry_backoff_ms = opts.retry_backoff.count();
  c.shell.allow = opts.shell_allow;
  c.tester.enabled = opts.tester;
  c.tester.work_dir = opts.tester_work_dir;
  if (auto problem = c.problem(); !problem.empty())
    throw std::invalid_argument(problem);
}

node::~node() {
  stop();
}

void node::add_kind(const std::string& name, kind_function fn) {
  impl_->require(false, "add_kind");
  if (name.empty() || !fn)
    throw std::invalid_argument("add_kind: needs a name and a function");
  impl_->cfg.kinds.add(name, [fn = std::move(fn)](const std::string& payload,
                                                  const cancel_token& cancel) {
    auto out = fn(payload, [&cancel] { return cancel.canceled(); });
    return out.ok ? task_outcome::success(std::move(out.result_or_reason))
                  : task_outcome::failure(std::move(out.result_or_reason));
  });
}

void node::add_actor_kind(const std::string& name, caf::actor worker,
                          std::chrono::milliseconds timeout) {
  impl_->require(false, "add_actor_kind");
  if (name.empty() || !worker)
    throw std::invalid_argument("add_actor_kind: needs a name and an actor");
  auto* sys = &impl_->sys;
  // Runs on a slot thread, which may block: ask the actor and wait.
  impl_->cfg.kinds.add(name, [sys, worker, timeout, name](const std::string& payload,
                                                          const cancel_token&) {
    caf::scoped_actor self{*sys};
    auto out = task_outcome::failure(name + ": no answer");
    self->request(worker, timeout, name, payload)
      .receive([&](std::string& result) { out = task_outcome::success(std::move(result)); },
               [&](caf::error& err) {
                 out = task_outcome::failure(name + ": " + sys->render(err));
               });
    return out;
  });
}

void node::start() {
  auto& st = *impl_;
  st.require(false, "start");
  udp_options uo;
  uo.listen = st.cfg.listen;
  uo.multicast_group = st.cfg.multicast;
  st.net = std::make_shared<udp_transport>(uo);
  // With port 0 the kernel picked one: peers must be told that one.
  st.cfg.listen = st.net->local();
  if (st.cfg.advertise && st.cfg.advertise->port == 0)
    st.cfg.advertise->port = st.cfg.listen.port;
  st.listener = st.sys.spawn(listener_fun, st.hub);
  st.running = std::make_unique<dice::node>(st.sys, st.cfg, st.net);
  caf::anon_send(st.running->queue(), subscribe_atom_v, st.listener);
  caf::anon_send(st.running->events(), subscribe_atom_v,
                 st.sys.spawn(message_listener_fun, st.messages));
  if (st.cfg.http)
    st.api = std::make_unique<http_api>(st.sys, *st.running, *st.cfg.http);
  st.evaluations = std::make_unique<evaluation_service>(st.sys, *st.running);
}

std::string node::submit_evaluation(const std::string& path,
                                    const evaluation_options& o) {
  auto& st = *impl_;
  st.require(true, "submit_evaluation");
  // The same checks as POST /evaluation's options.
  nlohmann::json j{{"runner", o.runner}, {"timeout", o.timeout_s}, {"reruns", o.reruns}};
  j["split"] = !o.split.empty() ? o.split : o.runner == "ctest" ? "test" : "file";
  if (!o.modules.empty())
    j["modules"] = o.modules;
  auto name = o.name;
  if (name.empty()) {
    auto p = std::filesystem::path(path);
    name = (p.has_filename() ? p : p.parent_path()).filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip"}) {
      std::string e = ext;
      if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
        name.resize(name.size() - e.size());
    }
  }
  j["name"] = name;
  std::string err;
  auto ask = parse_evaluation_request(j, st.running->tester()->cfg, err);
  if (!ask)
    throw std::invalid_argument("submit_evaluation: " + err);
  std::error_code ec;
  std::string sha;
  if (std::filesystem::is_directory(path, ec)) {
    sha = st.evaluations->store_directory(path, err);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw std::invalid_argument("submit_evaluation: " + path
                                  + ": no such directory or archive");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    sha = st.evaluations->store_upload(bytes, err);
  }
  if (sha.empty())
    throw std::invalid_argument("submit_evaluation: " + err);
  auto r = st.evaluations->submit(std::move(*ask), sha);
  if (r.refused == evaluation_receipt::refusal::bad_project)
    throw std::invalid_argument("submit_evaluation: " + r.error);
  if (r.refused != evaluation_receipt::refusal::none)
    throw std::runtime_error("submit_evaluation: " + r.error);
  return r.id;
}

std::optional<std::string> node::evaluation_report(const std::string& id) {
  auto& st = *impl_;
  st.require(true, "evaluation_report");
  std::string err;
  auto report = st.evaluations->report(id, err);
  if (!report && !err.empty())
    throw std::runtime_error("evaluation_report: " + err);
  if (!report)
    return std::nullopt;
  return report->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void node::on_message(const std::string& topic,
                      std::function<void(const message&)> fn) {
  std::lock_guard<std::mutex> g(impl_->messages->mtx);
  impl_->messages->list.emplace_back(topic, std::move(fn));
}

void node::publish(const std::string& topic, const std::string& data) {
  auto& st = *impl_;
  st.require(true, "publish");
  if (auto p = lock_name_problem(topic, "topic"); !p.empty())
    throw std::invalid_argument("publish: " + p);
  if (data.size() > 16 * 1024)
    throw std::invalid_argument("publish: data over 16 KiB");
  caf::scoped_actor self{st.sys};
  bool ok = false;
  std::string error;
  self->request(st.running->events(), std::chrono::seconds(5), publish_atom_v,
                topic, data)
    .receive([&](causal_delivery&) { ok = true; },
             [&](caf::error& err) { error = st.sys.render(err); });
  if (!ok)
    throw std::runtime_error("publish: " + (error.empty() ? "no answer" : error));
}

std::string node::submit(const task& t, std::chrono::milliseconds timeout) {
  auto& st = *impl_;
  st.require(true, "submit");
  if (!st.running->config().kinds.contains(t.kind))
    throw std::invalid_argument("submit: unknown kind '" + t.kind + "'");
  submit_limits limits;
  if (t.payload.size() > limits.max_payload_bytes)
    throw std::invalid_argument("submit: payload of " + std::to_string(t.payload.size())
                                + " bytes exceeds the limit of "
                                + std::to_string(limits.max_payload_bytes));
  if (auto p = lock_list_problem(t.locks); !p.empty())
    throw std::invalid_argument("submit: " + p);
  auto ms = [](auto d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  task_policy policy;
  policy.time_limit_ms = ms(t.time_limit);
  policy.max_attempts = t.max_attempts;
  policy.backoff_ms = ms(t.backoff);
  policy.delay_ms = ms(t.delay);
  policy.not_before_ms = ms(t.not_before.time_since_epoch());
  policy.expires_ms = ms(t.expires.time_since_epoch());
  policy.keep_for_ms = ms(t.keep_for) < 0 ? -1 : ms(t.keep_for);
  policy.key = t.key;
  auto now = wall_clock_ms();
  if (auto p = policy_problem(policy, now); !p.empty())
    throw std::invalid_argument("submit: " + p);
  wire::TaskSpec spec;
  apply_policy(policy, now, 0, 1, spec);
  caf::scoped_actor self{st.sys};
  if (!spec.key().empty()) {
    // The key's task, if this replica holds it already.
    bool held = false;
    self->request(st.running->queue(), timeout, tasks_atom_v,
                  task_query::of(spec.id()))
      .receive([&](const std::vector<task_row>& rows) {
                 held = !rows.empty() && rows.front().has_spec;
               },
               [&](caf::error&) {});
    if (held)
      return spec.id();
  }
  *spec.mutable_locks() = {t.locks.begin(), t.locks.end()};
  spec.set_kind(t.kind);
  spec.set_payload(t.payload);
  spec.set_priority(t.priority);
  for (auto& [node_id, count] : t.data_objects) {
    auto* d = spec.add_data_objects();
    d->set_node_id(node_id);
    d->set_count(count);
  }
  std::string id, error;
  self->request(st.running->queue(), timeout, submit_atom_v, std::move(spec))
    .receive([&](std::string& got) { id = std::move(got); },
             [&](caf::error& err) { error = st.sys.render(err); });
  if (id.empty())
    throw std::runtime_error("submit: " + (error.empty() ? "no answer" : error));
  return id;
}

void node::on_event(std::function<void(const task_event&)> fn) {
  impl_->hub->on_event(std::move(fn));
}

std::optional<task_event> node::await(const std::string& id,
                                      std::chrono::milliseconds timeout) {
  return impl_->hub->await(id, timeout);
}

bool node::remove(const std::string& id) {
  auto& st = *impl_;
  st.require(true, "remove");
  caf::scoped_actor self{st.sys};
  bool ok = false;
  self->request(st.running->queue(), std::chrono::seconds(10), remove_atom_v, id)
    .receive([&](bool r) { ok = r; }, [](caf::error&) {});
  return ok;
}

bool node::cancel(const std::string& id) {
  auto& st = *impl_;
  st.require(true, "cancel");
  caf::scoped_actor self{st.sys};
  bool ok = false;
  self->request(st.running->queue(), std::chrono::seconds(10), cancel_atom_v, id)
    .receive([&](bool r) { ok = r; }, [](caf::error&) {});
  return ok;
}

std::vector<std::string> node::kinds() const {
  return impl_->running ? impl_->running->config().kinds.names()
                        : impl_->cfg.kinds.names();
}

const std::string& node::id() const {
  return impl_->cfg.id;
}

std::string node::address() const {
  return impl_->cfg.advertised().to_string();
}

void node::stop() {
  auto& st = *impl_;
  if (st.api)
    st.api->stop();
  st.api.reset();
  st.evaluations.reset();
  if (st.running)
    st.running->stop();
  if (st.listener)
    caf::anon_send_exit(st.listener, caf::exit_reason::user_shutdown);
  st.listener = nullptr;
  // The node and its transport stay until destruction: stop() ended them.
}

} // namespace dice::embed
