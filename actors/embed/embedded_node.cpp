// dice::embed::node: the public facade over dice::node (actors/node), in
// plain types, for programs that embed a node in their own actor system.
// Its operations ask the front actor (front_actor.hpp), the node's actor
// interface, and wait for the answer: one implementation of each.
#include "dice/node.hpp"

#include <mutex>
#include <optional>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "broadcast_bridge/udp_transport.hpp"
#include "common/caf_setup.hpp"
#include "embed/evaluation_worker.hpp"
#include "embed/front_actor.hpp"
#include "http_api/http_api.hpp"
#include "node/node.hpp"
#include "evaluation/evaluation_service.hpp"
#include "known_tasks/task_policy.hpp"
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

// A callback as an actor: the front tells it what it subscribed to.
template <class T>
caf::typed_actor<caf::reacts_to<T>> spawn_caller(caf::actor_system& sys,
                                                 std::function<void(const T&)> fn) {
  return sys.spawn([fn = std::move(fn)]() -> typename caf::typed_actor<
                                            caf::reacts_to<T>>::behavior_type {
    return {[fn](const T& x) { fn(x); }};
  });
}

// A blocking call's error: a refusal for bad input is invalid_argument,
// anything else (busy, no answer, stopped) runtime_error.
[[noreturn]] void throw_for(const char* what, caf::actor_system& sys, const caf::error& e) {
  auto text = std::string(what) + ": "
              + (e == caf::sec::request_timeout ? "no answer in time" : sys.render(e));
  auto why = refusal_of(e);
  if (why && *why != refusal::busy)
    throw std::invalid_argument(text);
  throw std::runtime_error(text);
}

} // namespace

void prepare(caf::actor_system_config& cfg) {
  register_message_types(cfg);
  // A refusal renders as its reason.
  cfg.add_error_category(refusal_category,
                         [](std::uint8_t, caf::atom_value, const caf::message& ctx) {
                           return ctx.match_element<std::string>(0)
                                    ? ctx.get_as<std::string>(0)
                                    : std::string{"refused"};
                         });
}

struct node::impl {
  caf::actor_system& sys;
  node_config cfg;
  std::shared_ptr<udp_transport> net;
  std::unique_ptr<dice::node> running;
  std::unique_ptr<http_api> api;
  std::shared_ptr<evaluation_service> evaluations;
  evaluation_actor evaluator;
  front_actor front;
  // Callbacks: kept until start(), then each an actor subscribed to the front.
  std::mutex mtx;
  std::vector<std::function<void(const task_event&)>> event_fns;
  std::vector<std::pair<std::string, std::function<void(const message&)>>> message_fns;
  std::vector<caf::actor> callers; // stopped with the node

  impl(caf::actor_system& s) : sys(s) {}

  void require(bool started, const char* what) const {
    if ((running != nullptr) != started)
      throw std::logic_error(std::string("dice::embed::node: ") + what
                             + (started ? " needs start() first"
                                        : " must come before start()"));
  }

  // Subscribes a callback (task events; or messages, of a topic) to the
  // front. Under mtx.
  template <class T, class... Topic>
  void call(std::function<void(const T&)> fn, const Topic&... topic) {
    auto who = spawn_caller(sys, std::move(fn));
    callers.push_back(caf::actor_cast<caf::actor>(who));
    caf::anon_send(front, subscribe_atom_v, topic..., who);
  }

  // Asks the front and waits for its answer: none (and `err` set) if the
  // front refused or did not answer in time.
  template <class T, class... Ts>
  std::optional<T> try_ask(const char* what, std::chrono::milliseconds timeout,
                           caf::error& err, Ts&&... xs) {
    require(true, what);
    caf::scoped_actor self{sys};
    std::optional<T> out;
    self->request(front, timeout, std::forward<Ts>(xs)...)
      .receive([&](T& x) { out = std::move(x); }, [&](caf::error& e) { err = std::move(e); });
    return out;
  }

  // The same, throwing with `what` for no answer.
  template <class T, class... Ts>
  T ask(const char* what, std::chrono::milliseconds timeout, Ts&&... xs) {
    caf::error err;
    auto out = try_ask<T>(what, timeout, err, std::forward<Ts>(xs)...);
    if (!out)
      throw_for(what, sys, err);
    return std::move(*out);
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
  c.queue.prefetch_auto = opts.prefetch_auto;
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

void node::add_kind(const std::string& name, kind_function_with_parents fn) {
  impl_->require(false, "add_kind");
  if (name.empty() || !fn)
    throw std::invalid_argument("add_kind: needs a name and a function");
  impl_->cfg.kinds.add(name, request_function([fn = std::move(fn)](
                               const execution_request& req,
                               const cancel_token& cancel) {
    std::vector<parent> parents;
    for (const auto& p : req.parents)
      parents.push_back({p.task_id, p.state, p.result_or_reason});
    auto out = fn(req.payload, parents, [&cancel] { return cancel.canceled(); });
    return out.ok ? task_outcome::success(std::move(out.result_or_reason))
                  : task_outcome::failure(std::move(out.result_or_reason));
  }));
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
  node_world world;
  world.net = st.net;
  st.running = std::make_unique<dice::node>(st.sys, st.cfg, std::move(world));
  auto& running = *st.running;
  if (st.cfg.http)
    st.api = std::make_unique<http_api>(st.sys, running, *st.cfg.http);
  st.evaluations = std::make_shared<evaluation_service>(st.sys, running);
  st.evaluator = spawn_evaluation_worker(st.sys, st.evaluations, running.tester()->cfg);
  front_config fc;
  fc.runs = [&kinds = running.config().kinds](const std::string& k) {
    return kinds.contains(k);
  };
  fc.accept_ms = running.config().api.submit_accept_ms;
  st.front = spawn_front(st.sys, std::move(fc),
                         front_targets{running.queue(), running.events(), st.evaluator});
  std::lock_guard<std::mutex> g(st.mtx);
  for (auto& fn : st.event_fns)
    st.call(std::move(fn));
  for (auto& [topic, fn] : st.message_fns)
    st.call(std::move(fn), topic);
  st.event_fns.clear();
  st.message_fns.clear();
}

node_actor node::actor() const {
  impl_->require(true, "actor");
  return impl_->front;
}

std::string node::submit_evaluation(const std::string& path,
                                    const evaluation_options& o) {
  // Its own bound: packing and copying a project may take long.
  return impl_->ask<std::string>("submit_evaluation", std::chrono::minutes(10),
                                 evaluate_atom_v, path, o);
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
  auto& st = *impl_;
  std::lock_guard<std::mutex> g(st.mtx);
  if (st.front)
    st.call(std::move(fn), topic);
  else
    st.message_fns.emplace_back(topic, std::move(fn));
}

void node::publish(const std::string& topic, const std::string& data) {
  impl_->ask<message>("publish", std::chrono::seconds(5), publish_atom_v, topic, data);
}

std::string node::submit(const task& t, std::chrono::milliseconds timeout) {
  return impl_->ask<std::string>("submit", timeout, submit_atom_v, t);
}

std::string step_task_id(const std::string& workflow_id, const std::string& step,
                         std::size_t i, std::size_t count) {
  return keyed_task_id(nth_task_key(workflow_id + "/" + step, i, count));
}

std::string node::submit_workflow(const std::string& json,
                                  std::chrono::milliseconds timeout) {
  return impl_->ask<std::string>("submit_workflow", timeout, workflow_atom_v, json);
}

std::string node::add_schedule(const std::string& json,
                               std::chrono::milliseconds timeout) {
  return impl_->ask<std::string>("add_schedule", timeout, schedule_atom_v, json);
}

void node::on_event(std::function<void(const task_event&)> fn) {
  auto& st = *impl_;
  std::lock_guard<std::mutex> g(st.mtx);
  if (st.front)
    st.call(std::move(fn));
  else
    st.event_fns.push_back(std::move(fn));
}

std::optional<task_event> node::await(const std::string& id,
                                      std::chrono::milliseconds timeout) {
  auto& st = *impl_;
  st.require(true, "await");
  caf::scoped_actor self{st.sys};
  std::optional<task_event> out;
  // No answer in time: none. The front drops the wait when self goes.
  self->request(st.front, timeout, await_atom_v, id)
    .receive([&](task_event& end) { out = std::move(end); }, [](caf::error&) {});
  return out;
}

// No answer (a stopped or overloaded node) is false, as it always was.
bool node::remove(const std::string& id) {
  caf::error err;
  return impl_->try_ask<bool>("remove", std::chrono::seconds(10), err, remove_atom_v, id)
    .value_or(false);
}

bool node::cancel(const std::string& id) {
  caf::error err;
  return impl_->try_ask<bool>("cancel", std::chrono::seconds(10), err, cancel_atom_v, id)
    .value_or(false);
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
  {
    std::lock_guard<std::mutex> g(st.mtx);
    for (auto& who : st.callers)
      caf::anon_send_exit(who, caf::exit_reason::user_shutdown);
    st.callers.clear();
  }
  if (st.front)
    caf::anon_send_exit(st.front, caf::exit_reason::user_shutdown);
  if (st.evaluator) {
    // It uses the node: an evaluation it is submitting ends first.
    caf::anon_send_exit(st.evaluator, caf::exit_reason::user_shutdown);
    caf::scoped_actor self{st.sys};
    self->wait_for(st.evaluator);
    st.evaluator = nullptr;
  }
  st.evaluations.reset();
  if (st.running)
    st.running->stop();
  // The node and its transport stay until destruction: stop() ended them.
}

} // namespace dice::embed
