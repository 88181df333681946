#include <algorithm>
#include "queue_node/queue_node.hpp"

#include <functional>
#include <stdexcept>

#include <type_traits>
#include <utility>

namespace dice {

std::uint64_t subsystem_seed(std::uint64_t seed, station s) {
  // Each subsystem keeps the stream number it has always had (the station
  // numbers before finished_tasks was folded away), so a seeded run draws
  // what it drew before.
  std::uint64_t stream = static_cast<std::uint64_t>(s) + 1;
  if (s == station::unknown_resolver)
    stream = 7;
  // splitmix64 of (seed, stream): independent streams per subsystem.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * stream;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

machine_config checked(std::string id, std::uint64_t incarnation,
                       std::uint64_t seed, queue_config cfg) {
  if (id.empty())
    throw std::invalid_argument("queue: node id must not be empty");
  if (auto why = cfg.problem(); !why.empty())
    throw std::invalid_argument("queue: " + why);
  return {std::move(id), incarnation, seed, std::move(cfg)};
}

} // namespace

queue_node::queue_node(std::string id, std::uint64_t incarnation,
                       std::uint64_t seed, queue_config cfg)
  : mc_(checked(std::move(id), incarnation, seed, std::move(cfg))),
    origin_(origin_of(mc_.node_id, incarnation)),
    communication_(make_communication_machine(mc_)),
    known_tasks_(make_known_tasks_machine(mc_)),
    ready_queue_(make_ready_queue_machine(mc_)),
    ranking_(make_ranking_machine(mc_)),
    running_tasks_(make_running_tasks_machine(mc_)),
    unknown_resolver_(make_unknown_resolver_machine(mc_)) {
}

// -- the router ---------------------------------------------------------------

template <class E>
void queue_node::to_world(const E& x) {
  if constexpr (std::is_same_v<E, ev::broadcast>)
    out_.broadcasts.push_back(x.message);
  else if constexpr (std::is_same_v<E, ev::unicast>)
    out_.sends.push_back({x.peer, x.message});
  else if constexpr (std::is_same_v<E, ev::run_order>)
    out_.start.push_back({x.task_id, x.attempt, *x.spec});
  else if constexpr (std::is_same_v<E, ev::cancel_order>)
    out_.cancel.push_back({x.task_id, x.attempt, {}});
  else if constexpr (std::is_same_v<E, ev::acknowledged>)
    out_.acknowledged.push_back(x.task_id);
  else if constexpr (std::is_same_v<E, ev::task_changed>)
    out_.changed.push_back(x.task_id);
}

template <station S, class E>
void queue_node::deliver(const E& e) {
  std::uint64_t id = 0;
  if (tracer_) {
    ev::event traced{e};
    tracer_({S, traced, id = ++delivery_id_, traced_cause_});
  }
  if constexpr (S == station::communication)
    communication_.on(e, now_, emitted_);
  else if constexpr (S == station::known_tasks)
    known_tasks_.on(e, now_, emitted_);
  else if constexpr (S == station::ready_queue)
    ready_queue_.on(e, now_, emitted_);
  else if constexpr (S == station::ranking)
    ranking_.on(e, now_, emitted_);
  else if constexpr (S == station::running_tasks)
    running_tasks_.on(e, now_, emitted_);
  else if constexpr (S == station::unknown_resolver)
    unknown_resolver_.on(e, now_, emitted_);
  else
    to_world(e);
  if (tracer_)
    emitted_causes_.resize(emitted_.size(), id);
}

namespace {

// Puts each event in the mailbox of every station that takes it, bound to
// its delivery there (the routes send a station only what it takes).
struct mailbox_sink {
  queue_node& node;
  std::array<std::deque<std::function<void()>>, station_count>& boxes;
  template <station S, class E>
  void deliver(const E& e) {
    boxes[static_cast<std::size_t>(S)].emplace_back(
      [n = &node, e] { n->deliver<S>(e); });
  }
};

} // namespace

void queue_node::interleave(std::uint64_t seed) {
  interleaving_.emplace(seed);
}

void queue_node::run_interleaved(ev::events fresh) {
  traced_cause_ = 0; // causes are traced in FIFO order only
  mailbox_sink sink{*this, boxes_};
  for (const auto& e : fresh)
    route(e, sink);
  for (;;) {
    std::array<std::size_t, station_count> ready{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < station_count; ++i)
      if (!boxes_[i].empty())
        ready[n++] = i;
    if (n == 0)
      return;
    auto i = ready[(*interleaving_)() % n];
    auto handle = std::move(boxes_[i].front());
    boxes_[i].pop_front();
    handle();
    for (const auto& next : emitted_)
      route(next, sink);
    emitted_.clear();
    emitted_causes_.clear();
  }
}

void queue_node::run(ev::events fresh) {
  if (interleaving_)
    return run_interleaved(std::move(fresh));
  for (auto& e : fresh) {
    mailbox_.push_back(std::move(e));
    causes_.push_back(0);
  }
  while (!mailbox_.empty()) {
    auto e = std::move(mailbox_.front());
    mailbox_.pop_front();
    traced_cause_ = causes_.front();
    causes_.pop_front();
    route(e, *this);
    for (std::size_t i = 0; i < emitted_.size(); ++i) {
      mailbox_.push_back(std::move(emitted_[i]));
      causes_.push_back(i < emitted_causes_.size() ? emitted_causes_[i] : 0);
    }
    emitted_.clear();
    emitted_causes_.clear();
  }
}

// -- inputs -------------------------------------------------------------------

void queue_node::on_message(const wire::Message& m, millis now) {
  now_ = now;
  ev::events out;
  communication_.on_received(m, now, out);
  communication_.send_acks(out);
  run(std::move(out));
}

void queue_node::on_peer_heartbeat(const std::string& peer,
                                   std::uint64_t incarnation,
                                   const wire::Heartbeat& hb, millis now) {
  now_ = now;
  ev::events out;
  communication_.on_peer_heartbeat(peer, incarnation, hb, now, out);
  run(std::move(out));
}

void queue_node::on_peer_dead(const std::string& peer, millis now) {
  now_ = now;
  ev::events out;
  communication_.on_peer_dead(peer, now, out);
  run(std::move(out));
}

void queue_node::set_coordinator(const std::string& coordinator, millis now) {
  now_ = now;
  ev::events out;
  communication_.set_coordinator(coordinator, now, out);
  run(std::move(out));
}

void queue_node::tick(millis now) {
  now_ = now;
  ev::events out;
  unknown_resolver_.tick(now, out);
  ranking_.tick(now, out);
  ready_queue_.tick(now, out);
  running_tasks_.tick(now, out);
  communication_.tick(now, out);
  run(std::move(out));
}

void queue_node::execution_finished(const std::string& task_id,
                                    std::uint32_t attempt, bool ok,
                                    const std::string& result, millis now,
                                    millis started) {
  now_ = now;
  run({ev::execution_report{task_id, attempt, ok, result, started}});
}

// -- user operations ----------------------------------------------------------

std::optional<wire::OpId> queue_node::submit(wire::TaskSpec spec, millis now) {
  now_ = now;
  auto op = communication_.next_op();
  ev::events out;
  if (!known_tasks_.submit(std::move(spec), now, out))
    return std::nullopt;
  run(std::move(out));
  return op;
}

std::optional<wire::OpId> queue_node::remove(const std::string& task_id,
                                             millis now) {
  now_ = now;
  auto op = communication_.next_op();
  ev::events out;
  if (!known_tasks_.remove(task_id, now, out))
    return std::nullopt;
  run(std::move(out));
  return op;
}

bool queue_node::cancel(const std::string& task_id, millis now) {
  now_ = now;
  ev::events out;
  if (!known_tasks_.cancel(task_id, now, out))
    return false;
  run(std::move(out));
  return true;
}

// -- outputs ------------------------------------------------------------------

queue_outbox queue_node::take_outbox() {
  queue_outbox result;
  std::swap(result, out_);
  return result;
}

queue_counters queue_node::counters() const {
  queue_counters sum;
  sum += communication_.counters();
  sum += known_tasks_.counters();
  sum += ranking_.counters();
  sum += running_tasks_.counters();
  return sum;
}

} // namespace dice
