#pragma once
// A few queue_nodes wired together with instant delivery, for step-by-step
// mechanism tests: a filter drops chosen messages, executions finish after
// task_ms with an outcome the test picks, version vectors are exchanged
// every versions_every_ms (0: never) as membership heartbeats would.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "queue_node/queue_node.hpp"

namespace dice::test {

struct lockstep {
  struct running_exec {
    std::string node, task_id;
    std::uint32_t attempt;
    millis ends;
  };

  std::vector<std::unique_ptr<queue_node>> nodes;
  millis now = 10'000;
  millis task_ms = 500;
  millis versions_every_ms = 0;
  millis last_versions = 0;
  /// True drops the message from -> to.
  std::function<bool(const std::string&, const std::string&,
                     const wire::Message&)>
    drop;
  /// Outcome of an execution: ok?
  std::function<bool(const std::string& node, const std::string& task,
                     std::uint32_t attempt)>
    outcome;
  std::set<std::string> down; // silent nodes: no ticks, nothing in or out
  /// Sees each message delivered (from, to), each execution started and
  /// each one finished (ok?), for traces.
  std::function<void(const std::string&, const std::string&,
                     const wire::Message&)>
    on_delivered;
  std::function<void(const std::string& node, const std::string& task,
                     std::uint32_t attempt)>
    on_started;
  std::function<void(const std::string& node, const std::string& task,
                     std::uint32_t attempt, bool ok)>
    on_finished;
  /// Sees a node about to take an input of the harness: "tick" or
  /// "heartbeat" (a peer's version vector).
  std::function<void(const std::string& node, const char* input)> on_input;

  std::vector<running_exec> executing;
  // Start orders beyond a node's slots (prefetched claims): they run in
  // order as its slots free, as in the executor's queue.
  std::vector<running_exec> queued;
  std::vector<running_exec> started, canceled;
  // Every message sent: (from, message).
  std::vector<std::pair<std::string, wire::Message>> sent;

  queue_node& add(const std::string& id, queue_config cfg = {},
                  std::uint64_t incarnation = 1) {
    nodes.push_back(std::make_unique<queue_node>(
      id, incarnation, std::hash<std::string>{}(id) + incarnation, cfg));
    return *nodes.back();
  }

  queue_node& at(const std::string& id) {
    for (auto& n : nodes)
      if (n->id() == id)
        return *n;
    throw std::out_of_range(id);
  }

  void replace(const std::string& id, queue_config cfg,
               std::uint64_t incarnation) {
    for (auto& n : nodes)
      if (n->id() == id)
        n = std::make_unique<queue_node>(id, incarnation, 7 + incarnation,
                                         cfg);
    executing.erase(std::remove_if(executing.begin(), executing.end(),
                                   [&](auto& e) { return e.node == id; }),
                    executing.end());
  }

  void route(const std::string& from, const std::string& to,
             wire::Message m) {
    if (down.count(from) || down.count(to))
      return;
    if (drop && drop(from, to, m))
      return;
    m.set_sender_id(from);
    if (on_delivered)
      on_delivered(from, to, m);
    at(to).on_message(m, now);
  }

  /// Delivers outboxes until every node is quiet.
  void flush() {
    for (bool busy = true; busy;) {
      busy = false;
      for (auto& n : nodes) {
        auto out = n->take_outbox();
        if (out.empty())
          continue;
        busy = true;
        if (down.count(n->id()))
          continue;
        for (auto& o : out.start)
          queued.push_back({n->id(), o.task_id, o.attempt, 0});
        for (auto& o : out.cancel) {
          canceled.push_back({n->id(), o.task_id, o.attempt, now});
          auto same = [&](auto& e) {
            return e.node == n->id() && e.task_id == o.task_id;
          };
          executing.erase(
            std::remove_if(executing.begin(), executing.end(), same),
            executing.end());
          queued.erase(std::remove_if(queued.begin(), queued.end(), same),
                       queued.end());
        }
        run_queued();
        for (auto& m : out.broadcasts) {
          sent.emplace_back(n->id(), m);
          for (auto& peer : nodes)
            if (peer->id() != n->id())
              route(n->id(), peer->id(), m);
        }
        for (auto& s : out.sends) {
          sent.emplace_back(n->id(), s.message);
          route(n->id(), s.to, s.message);
        }
      }
    }
  }

  /// Starts queued executions of nodes with a free slot.
  void run_queued() {
    for (auto i = queued.begin(); i != queued.end();) {
      if (down.count(i->node) > 0) {
        ++i;
        continue;
      }
      auto busy = std::count_if(executing.begin(), executing.end(),
                                [&](auto& e) { return e.node == i->node; });
      if (static_cast<std::size_t>(busy) >= at(i->node).config().slots) {
        ++i;
        continue;
      }
      executing.push_back({i->node, i->task_id, i->attempt, now + task_ms});
      started.push_back(executing.back());
      if (on_started)
        on_started(i->node, i->task_id, i->attempt);
      i = queued.erase(i);
    }
  }

  static std::uint64_t incarnation_of(const queue_node& n) {
    return std::stoull(n.origin().substr(n.origin().rfind('#') + 1));
  }

  void exchange_versions() {
    for (auto& from : nodes) {
      if (down.count(from->id()))
        continue;
      wire::Heartbeat hb;
      from->fill_heartbeat(&hb);
      for (auto& to : nodes)
        if (to != from && !down.count(to->id())) {
          if (on_input)
            on_input(to->id(), "heartbeat");
          to->on_peer_heartbeat(from->id(), incarnation_of(*from), hb, now);
        }
    }
  }

  void step(millis dt = 1) {
    now += dt;
    for (auto i = executing.begin(); i != executing.end();) {
      if (i->ends <= now) {
        auto e = *i;
        i = executing.erase(i);
        bool ok = outcome ? outcome(e.node, e.task_id, e.attempt) : true;
        if (on_finished)
          on_finished(e.node, e.task_id, e.attempt, ok);
        at(e.node).execution_finished(e.task_id, e.attempt, ok,
                                      ok ? "result of " + e.task_id : "boom",
                                      now, e.ends - task_ms);
      } else {
        ++i;
      }
    }
    run_queued();
    if (versions_every_ms > 0 && now - last_versions >= versions_every_ms) {
      last_versions = now;
      exchange_versions();
    }
    for (auto& n : nodes)
      if (!down.count(n->id())) {
        if (on_input)
          on_input(n->id(), "tick");
        n->tick(now);
      }
    flush();
  }

  void run_for(millis duration, millis dt = 1) {
    for (millis end = now + duration; now < end;)
      step(dt);
  }

  std::size_t count_sent(wire::Message::BodyCase body) const {
    std::size_t n = 0;
    for (auto& [from, m] : sent)
      n += m.body_case() == body ? 1 : 0;
    return n;
  }

  std::size_t starts_of(const std::string& task_id) const {
    std::size_t n = 0;
    for (auto& e : started)
      n += e.task_id == task_id ? 1 : 0;
    return n;
  }
};

inline wire::TaskSpec spec_of(const std::string& id, int priority = 0) {
  wire::TaskSpec s;
  s.set_id(id);
  s.set_kind("test");
  s.set_payload("payload " + id);
  s.set_priority(priority);
  return s;
}

inline wire::TaskPhase phase_on(queue_node& n, const std::string& task_id) {
  auto t = n.replica().find(task_id);
  return t == nullptr ? static_cast<wire::TaskPhase>(-1) : t->state.phase();
}

} // namespace dice::test
