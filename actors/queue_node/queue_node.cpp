#include <algorithm>
#include "queue_node/queue_node.hpp"

#include <functional>
#include <stdexcept>

#include <type_traits>
#include <utility>

#include "vocabulary/queue_messages.hpp"

namespace dice {

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

// Puts each event in the mailbox of every subsystem that takes it, bound
// to its delivery there (the routes send a station only what it takes).
// What leaves the node goes to the outbox at once: the simulated network
// and executor model their own delays.
struct mailbox_sink {
  queue_node& node;
  std::array<std::deque<std::function<void()>>, station_count>& boxes;
  template <station S, class E>
  void deliver(const E& e) {
    if constexpr (S == station::bridge || S == station::executor
                  || S == station::world)
      node.deliver<S>(e);
    else
      boxes[static_cast<std::size_t>(S)].emplace_back(
        [n = &node, e] { n->deliver<S>(e); });
  }
};

} // namespace

void queue_node::interleave(std::uint64_t seed) {
  interleaving_.emplace(seed);
}

std::size_t queue_node::pending() const {
  std::size_t n = 0;
  for (const auto& box : boxes_)
    n += box.size();
  return n;
}

void queue_node::drain() {
  if (interleaving_)
    while (deliver_one(all_stations))
      ;
}

bool queue_node::deliver_one(std::uint32_t from) {
  std::array<std::size_t, station_count> ready{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < station_count; ++i)
    if ((from >> i & 1) != 0 && !boxes_[i].empty())
      ready[n++] = i;
  if (n == 0)
    return false;
  auto i = ready[(*interleaving_)() % n];
  auto handle = std::move(boxes_[i].front());
  boxes_[i].pop_front();
  handle();
  mailbox_sink sink{*this, boxes_};
  for (const auto& next : emitted_)
    route(next, sink);
  emitted_.clear();
  emitted_causes_.clear();
  return true;
}

void queue_node::settle() {
  // The actors keep up, at most max_waiting events wait after an input,
  // but how far each got when the next input arrives is the seed's choice.
  // (Long backlogs would model slow actors: the claim windows, a few ms,
  // would then mostly measure that delay.)
  constexpr std::size_t max_waiting = 4;
  for (auto n = pending(); n > 0; n = pending()) {
    if (n <= max_waiting && (*interleaving_)() % 16 == 0)
      return;
    deliver_one(all_stations);
  }
}

void queue_node::answer_after_waiting() {
  if (!interleaving_)
    return;
  constexpr auto known_tasks = 1u << static_cast<unsigned>(station::known_tasks);
  constexpr auto communication =
    1u << static_cast<unsigned>(station::communication);
  while (deliver_one(known_tasks | communication))
    ;
}

void queue_node::post(station s, input handle) {
  if (!interleaving_) {
    ev::events out;
    handle(out);
    return run(std::move(out));
  }
  boxes_[static_cast<std::size_t>(s)].emplace_back(
    [this, h = std::move(handle)] { h(emitted_); });
  settle();
}

void queue_node::run(ev::events fresh) {
  if (interleaving_) {
    traced_cause_ = 0; // causes are traced in FIFO order only
    mailbox_sink sink{*this, boxes_};
    for (const auto& e : fresh)
      route(e, sink);
    return settle();
  }
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
// Interleaved, each waits in its station's mailbox like a message to that
// actor, and is handled with the time of its handling.

void queue_node::on_message(const wire::Message& m, millis now) {
  on_message(std::make_shared<const wire::Message>(m), now);
}

void queue_node::on_message(std::shared_ptr<const wire::Message> m,
                            millis now) {
  now_ = now;
  post(station::communication, [this, m = std::move(m)](ev::events& out) {
    communication_.on_received(*m, now_, out);
    communication_.send_acks(out);
  });
}

void queue_node::on_peer_heartbeat(const std::string& peer,
                                   std::uint64_t incarnation,
                                   const wire::Heartbeat& hb, millis now) {
  on_peer_heartbeat(peer, incarnation,
                    std::make_shared<const wire::Heartbeat>(hb), now);
}

void queue_node::on_peer_heartbeat(const std::string& peer,
                                   std::uint64_t incarnation,
                                   std::shared_ptr<const wire::Heartbeat> hb,
                                   millis now) {
  now_ = now;
  post(station::communication,
       [this, peer, incarnation, hb = std::move(hb)](ev::events& out) {
         communication_.on_peer_heartbeat(peer, incarnation, *hb, now_, out);
       });
}

void queue_node::on_peer_dead(const std::string& peer, millis now) {
  now_ = now;
  post(station::communication, [this, peer](ev::events& out) {
    communication_.on_peer_dead(peer, now_, out);
  });
}

void queue_node::set_coordinator(const std::string& coordinator, millis now) {
  now_ = now;
  post(station::communication, [this, coordinator](ev::events& out) {
    communication_.set_coordinator(coordinator, now_, out);
  });
}

void queue_node::tick(millis now) {
  now_ = now;
  // The ticking subsystems, in the order a single mailbox handles them.
  const std::pair<station, input> timers[] = {
    {station::unknown_resolver,
     [this](ev::events& out) { unknown_resolver_.tick(now_, out); }},
    {station::ranking, [this](ev::events& out) { ranking_.tick(now_, out); }},
    {station::ready_queue,
     [this](ev::events& out) { ready_queue_.tick(now_, out); }},
    {station::running_tasks,
     [this](ev::events& out) { running_tasks_.tick(now_, out); }},
    {station::communication,
     [this](ev::events& out) { communication_.tick(now_, out); }},
    {station::known_tasks,
     [this](ev::events& out) { known_tasks_.tick(now_, out); }},
  };
  if (interleaving_) {
    // Each subsystem's timer, with at most one tick waiting in its
    // mailbox, as an actor's timer message.
    for (const auto& [s, handle] : timers)
      tick_at(s, handle);
    return settle();
  }
  ev::events out;
  for (const auto& [s, handle] : timers)
    handle(out);
  run(std::move(out));
}

void queue_node::tick_at(station s, input handle) {
  auto i = static_cast<std::size_t>(s);
  if (tick_waiting_[i])
    return;
  tick_waiting_[i] = true;
  boxes_[i].emplace_back([this, i, h = std::move(handle)] {
    tick_waiting_[i] = false;
    h(emitted_);
  });
}

void queue_node::execution_finished(const std::string& task_id,
                                    std::uint32_t attempt, bool ok,
                                    const std::string& result, millis now,
                                    millis started) {
  execution_finished(ev::execution_report{task_id, attempt, ok, result, started},
                     now);
}

void queue_node::execution_begun(const std::string& task_id,
                                 std::uint32_t attempt, millis now) {
  now_ = now;
  run({ev::execution_begun{task_id, attempt, now}});
}

void queue_node::execution_finished(ev::execution_report report, millis now) {
  now_ = now;
  run({std::move(report)});
}

// -- user operations ----------------------------------------------------------

// Each answers at once, so it reaches known_tasks only after what waits
// there; communication then numbers the ops waiting for it first, so the
// next op id is this operation's.

std::optional<wire::OpId> queue_node::submit(wire::TaskSpec spec, millis now) {
  now_ = now;
  answer_after_waiting();
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
  answer_after_waiting();
  auto op = communication_.next_op();
  ev::events out;
  if (!known_tasks_.remove(task_id, now, out))
    return std::nullopt;
  run(std::move(out));
  return op;
}

bool queue_node::cancel(const std::string& task_id, millis now) {
  now_ = now;
  answer_after_waiting();
  ev::events out;
  if (!known_tasks_.cancel(task_id, now, out))
    return false;
  run(std::move(out));
  return true;
}

void queue_node::restore(const std::vector<wire::TakeMyTask>& records,
                         replica_sink* sink, millis now) {
  now_ = now;
  ev::events out;
  known_tasks_.restore(records, now, out);
  known_tasks_.keep_in(sink);
  run(std::move(out));
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
  sum += ready_queue_.counters();
  sum += running_tasks_.counters();
  return sum;
}

} // namespace dice
