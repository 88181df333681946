#include "simulation/sim_cluster.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "broadcast_bridge/bundle.hpp"
#include "vocabulary/queue_messages.hpp"

namespace dice {

namespace {

// Raw draws (not <random> distributions): a seed replays on every platform.
std::uint64_t draw(std::mt19937_64& rng, std::uint64_t n) {
  return n == 0 ? 0 : rng() % n;
}

} // namespace

sim_cluster::sim_cluster(sim_options opts)
  : opts_(std::move(opts)),
    net_(opts_.seed),
    rng_(opts_.seed * 0x9e3779b97f4a7c15ULL + 1) {
  if (opts_.nodes == 0)
    throw std::invalid_argument("sim: at least one node");
  net_.set_default_faults(opts_.faults);
  nodes_.resize(opts_.nodes);
  done_by_.assign(opts_.nodes, 0);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].id = "n" + std::to_string(i + 1);
    nodes_[i].incarnation = opts_.first_incarnation;
    timeline_.nodes.push_back(nodes_[i].id);
    index_[nodes_[i].id] = i;
    net_.attach(nodes_[i].id);
  }
  for (auto& n : nodes_)
    boot(n);
}

void sim_cluster::boot(sim_node& n) {
  n.membership = std::make_unique<membership_state>(
    n.id, n.id, n.incarnation, opts_.membership);
  for (const auto& other : nodes_)
    if (other.id != n.id)
      n.membership->add_seed(other.id);
  // Drawn only when asked for, so seeds without skew replay as before.
  // Ahead only: no node's clock starts below 0.
  if (opts_.clock_skew_ms > 0)
    n.skew = static_cast<millis>(
      draw(rng_, static_cast<std::uint64_t>(opts_.clock_skew_ms + 1)));
  n.queue = std::make_unique<queue_node>(n.id, n.incarnation, rng_(),
                                         opts_.queue);
  if (opts_.interleave)
    n.queue->interleave(rng_());
  if (opts_.journal) {
    if (!n.journal)
      n.journal = std::make_unique<memory_journal>();
    n.queue->restore(n.journal->records(), n.journal.get(), local(n));
  }
  n.running.clear();
  n.queued.clear();
  n.coordinator.clear();
  n.next_heartbeat =
    now_ + static_cast<millis>(
      draw(rng_, static_cast<std::uint64_t>(
                   opts_.membership.heartbeat_interval_ms)));
}

bool sim_cluster::chance(double p) {
  return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p;
}

std::size_t sim_cluster::index_of(const std::string& id) const {
  auto i = index_.find(id);
  if (i == index_.end())
    throw std::out_of_range("sim: unknown node " + id);
  return i->second;
}

std::shared_ptr<const std::vector<wire::Message>>
sim_cluster::parsed(const std::string& bytes) {
  auto [i, added] = parsed_.try_emplace(bytes);
  if (added) {
    wire::Message m;
    if (m.ParseFromString(bytes) && well_formed_bundle(m))
      i->second.parts = std::make_shared<const std::vector<wire::Message>>(
        unbundle(std::move(m)));
  }
  i->second.used = now_;
  return i->second.parts;
}

std::string sim_cluster::encode(sim_node& n, wire::Message m) {
  m.set_cluster_id("sim");
  m.set_sender_id(n.id);
  m.set_sender_addr(n.id);
  m.set_incarnation(n.incarnation);
  m.set_sequence(++n.sequence);
  m.set_timestamp_ms(local(n));
  return m.SerializeAsString();
}

void sim_cluster::flush(sim_node& n) {
  if (!n.up)
    return;
  auto out = n.queue->take_outbox();
  for (const auto& o : out.start)
    n.queued.emplace_back(o.task_id, o.attempt);
  for (const auto& o : out.cancel) {
    auto r = n.running.find(o.task_id);
    if (r != n.running.end() && r->second.attempt == o.attempt)
      n.running.erase(r);
    n.queued.erase(std::remove(n.queued.begin(), n.queued.end(),
                               std::make_pair(o.task_id, o.attempt)),
                   n.queued.end());
  }
  run_queued(n);
  for (const auto& id : out.acknowledged)
    accepted_.insert(id);
  auto count = [&](const wire::Message& m) {
    traffic_.count_sent(m);
    if (m.has_info() && m.info().phase() == wire::DONE)
      ++completions_[m.info().task_id()];
  };
  for (const auto& m : out.broadcasts) {
    count(m);
    note_policy(n, m, true);
  }
  broadcast_bundled(n, std::move(out.broadcasts));
  for (auto& s : out.sends) {
    auto bytes = encode(n, s.message);
    count(s.message);
    traffic_.queue_bytes += bytes.size();
    net_.send(now_, n.id, s.to, bytes);
  }
}

void sim_cluster::broadcast_bundled(sim_node& n,
                                    std::vector<wire::Message> parts) {
  // The bridge's identity in the simulation: addresses are ids.
  bridge_identity self{"sim", n.id, n.id, n.incarnation};
  auto peers = static_cast<std::uint64_t>(nodes_.size() - 1);
  for (auto& m : pack_bundles(std::move(parts), bundle_budget(self, {}))) {
    if (m.has_bundle())
      traffic_.count_bundle(m);
    auto bytes = encode(n, std::move(m));
    traffic_.queue_bytes += peers * bytes.size();
    net_.broadcast(now_, n.id, bytes);
  }
}

void sim_cluster::send_heartbeat(sim_node& n) {
  auto m = n.membership->make_heartbeat();
  n.queue->fill_heartbeat(m.mutable_heartbeat());
  auto bytes = encode(n, m);
  traffic_.largest_heartbeat_bytes =
    std::max(traffic_.largest_heartbeat_bytes, bytes.size());
  for (const auto& to : n.membership->heartbeat_targets()) {
    ++traffic_.membership_heartbeats;
    net_.send(now_, n.id, to, bytes);
  }
}

void sim_cluster::deliver(const sim_delivery& d) {
  auto& n = nodes_[index_of(d.to)];
  if (!n.up)
    return;
  auto parts = parsed(d.bytes);
  if (parts == nullptr)
    return;
  for (const auto& m : *parts) {
    if (m.has_heartbeat()) {
      for (const auto& c : n.membership->on_heartbeat(m, local(n)))
        if (c.to == peer_state::dead || c.restarted)
          n.queue->on_peer_dead(c.id, local(n));
      n.queue->on_peer_heartbeat(
        m.sender_id(), m.incarnation(),
        std::shared_ptr<const wire::Heartbeat>(parts, &m.heartbeat()),
        local(n));
    } else {
      note_policy(n, m, false);
      n.queue->on_message(std::shared_ptr<const wire::Message>(parts, &m),
                          local(n));
    }
  }
  flush(n);
}

void sim_cluster::run_queued(sim_node& n) {
  while (!n.queued.empty() && n.running.size() < opts_.queue.slots) {
    auto [task_id, attempt] = n.queued.front();
    n.queued.pop_front();
    if (!check_start(n, task_id, attempt)) {
      // Claimed ahead, its expiry passed before a slot freed: the
      // executor reports it expired, unrun.
      ev::execution_report r{task_id, attempt, false,
                             "not started before it expired", local(n)};
      r.final = r.expired = true;
      n.queue->execution_finished(std::move(r), local(n));
      continue;
    }
    // Transient failures spare the last allowed attempt.
    bool ok = !(attempt < opts_.queue.max_attempts
                && chance(opts_.fail_probability));
    n.running[task_id] =
      execution{attempt, now_ + opts_.task_ms, ok, local(n)};
    n.queue->execution_begun(task_id, attempt, local(n));
    if (++executions_[task_id] > 1)
      ++duplicates_;
  }
}

bool sim_cluster::forgotten_by(const queue_node& q, const std::string& task_id) const {
  auto s = specs_.find(task_id);
  return s != specs_.end() && s->second.has_created()
         && q.forgotten().contains(s->second.created());
}

bool sim_cluster::check_start(const sim_node& n, const std::string& task_id,
                              std::uint32_t attempt) {
  auto s = specs_.find(task_id);
  if (s == specs_.end())
    return true;
  const auto& spec = s->second;
  // Times are the claiming node's: the spec's are its submitter's clock.
  auto now = local(n);
  auto at = " started at " + std::to_string(now);
  if (now < spec.not_before_ms())
    policy_violations_.push_back(task_id + at + " before its not-before "
                                 + std::to_string(spec.not_before_ms()));
  // A task this replica forgot never runs here again: nothing brings it
  // back. (A replica partitioned from those that ran and forgot it may
  // run it, as it may run any task whose end it has not heard of.)
  if (spec.has_created() && n.queue->forgotten().contains(spec.created()))
    policy_violations_.push_back(task_id + " forgotten by " + n.id + " yet" + at
                                 + " there");
  auto seen = attempts_seen_.find({n.id, task_id, attempt});
  if (seen != attempts_seen_.end() && now < seen->second.not_before)
    policy_violations_.push_back(
      task_id + " attempt " + std::to_string(attempt) + " on " + n.id + at
      + ", before the not-before " + std::to_string(seen->second.not_before)
      + " it knew when it claimed");
  return spec.expires_ms() == 0 || now < spec.expires_ms();
}

void sim_cluster::note_policy(const sim_node& n, const wire::Message& m,
                              bool sent) {
  auto ready = [&](const std::string& task_id, const wire::TaskState& state) {
    if (state.phase() != wire::READY || state.not_before_ms() == 0)
      return;
    auto& a = attempts_seen_[{n.id, task_id, state.attempt()}];
    if (!a.claimed)
      a.not_before = std::max(a.not_before, state.not_before_ms());
  };
  // The number its enqueuer gave the task, for the forgetting checks.
  if (sent && m.has_enqueue() && m.enqueue().spec().has_created())
    *specs_[m.enqueue().spec().id()].mutable_created() = m.enqueue().spec().created();
  if (sent && m.has_dequeue()) {
    const auto& d = m.dequeue();
    attempts_seen_[{n.id, d.task_id(), d.attempt()}].claimed = true;
    // A claim made after its task's expiry (an execution of one is stopped
    // at its start, as the executor does, in run_queued). A reclaim keeps
    // the claim, and its time, of an execution started in time.
    auto s = specs_.find(d.task_id());
    if (s != specs_.end() && s->second.expires_ms() > 0
        && d.claim().dequeue_time_ms() >= s->second.expires_ms())
      policy_violations_.push_back(d.task_id() + " claimed by " + n.id + " at "
                                   + std::to_string(local(n))
                                   + ", after its expiry "
                                   + std::to_string(s->second.expires_ms()));
  }
  if (auto state = state_of(m))
    ready(task_id_of(m), *state);
  if (m.has_sync_reply()) {
    for (const auto& op : m.sync_reply().ops())
      note_policy(n, op, false);
    for (const auto& t : m.sync_reply().snapshot())
      ready(t.spec().id(), t.state());
  }
}

void sim_cluster::finish_executions(sim_node& n) {
  for (auto r = n.running.begin(); r != n.running.end();) {
    if (r->second.ends > now_) {
      ++r;
      continue;
    }
    auto task_id = r->first;
    auto e = r->second;
    r = n.running.erase(r);
    if (e.ok && finished_.insert(task_id).second)
      ++done_by_[index_of(n.id)];
    n.queue->execution_finished(task_id, e.attempt, e.ok,
                                e.ok ? "result:" + task_id
                                     : "transient failure",
                                local(n), e.started);
  }
}

void sim_cluster::step() {
  now_ += opts_.tick_ms;
  while (auto d = net_.pop_due(now_))
    deliver(*d);
  if (now_ >= next_parsed_sweep_) {
    // Every copy of a datagram arrives within max_delay of its sending.
    auto keep = 2 * opts_.faults.max_delay + 2 * opts_.tick_ms;
    for (auto i = parsed_.begin(); i != parsed_.end();)
      i = now_ - i->second.used > keep ? parsed_.erase(i) : std::next(i);
    next_parsed_sweep_ = now_ + keep;
  }
  for (auto& n : nodes_) {
    if (!n.up)
      continue;
    finish_executions(n);
    if (now_ >= n.next_heartbeat) {
      send_heartbeat(n);
      n.next_heartbeat = now_ + opts_.membership.heartbeat_interval_ms;
    }
    if (now_ >= n.next_failure_check) {
      // Failure detection every failure_check_ms, as the membership actor
      // checks (not every tick: a sweep over every peer is O(N^2)).
      n.next_failure_check = now_ + opts_.membership.failure_check_ms;
      for (const auto& c : n.membership->tick(local(n)))
        if (c.to == peer_state::dead)
          n.queue->on_peer_dead(c.id, local(n));
      elect(n);
    }
    n.queue->tick(local(n));
    flush(n);
  }
  if (opts_.timeline_every_ms > 0 && now_ >= next_sample_) {
    sample_timeline();
    next_sample_ = now_ + opts_.timeline_every_ms;
  }
}

void sim_cluster::sample_timeline() {
  timeline_sample s;
  s.at = now_;
  s.done_by = done_by_;
  s.claims_lost = claims_lost_retired_;
  s.duplicates = duplicates_;
  for (const auto& n : nodes_)
    if (n.up) {
      s.claims_lost += n.queue->counters().claims_lost;
      ++s.up;
    }
  timeline_.samples.push_back(std::move(s));
}

void sim_cluster::elect(sim_node& n) {
  if (!opts_.coordinator)
    return;
  // Addresses are ids in the simulation.
  auto best = n.id;
  for (const auto& peer : n.membership->heartbeat_targets())
    best = std::max(best, peer);
  if (best == n.coordinator && n.queue->acts_as_coordinator() == (best == n.id))
    return;
  n.coordinator = best;
  n.queue->set_coordinator(best, local(n));
}

void sim_cluster::run_until(millis t) {
  while (now_ < t)
    step();
}

std::string sim_cluster::submit(std::size_t i, wire::TaskSpec spec) {
  auto& n = nodes_.at(i);
  if (!n.up)
    throw std::logic_error("sim: submit at a crashed node");
  auto id = spec.id();
  specs_[id] = spec;
  if (n.queue->submit(std::move(spec), local(n))) {
    submitted_.insert(id);
    if (first_submit_ < 0)
      first_submit_ = now_;
  }
  flush(n);
  return id;
}

void sim_cluster::remove(std::size_t i, const std::string& task_id) {
  auto& n = nodes_.at(i);
  if (!n.up)
    return;
  if (auto op = n.queue->remove(task_id, local(n))) {
    removed_.insert(task_id);
    remove_ops_[task_id].push_back(*op);
  }
  flush(n);
}

void sim_cluster::crash(std::size_t i) {
  auto& n = nodes_.at(i);
  if (!n.up)
    return;
  net_.crash(n.id);
  n.up = false;
  n.running.clear();
  n.queued.clear();
  claims_lost_retired_ += n.queue->counters().claims_lost;
  n.queue.reset();
  n.membership.reset();
  ++crashes_;
}

void sim_cluster::restart(std::size_t i) {
  auto& n = nodes_.at(i);
  if (n.up)
    return;
  ++n.incarnation;
  n.up = true;
  net_.restart(n.id);
  boot(n);
}

void sim_cluster::partition(
  const std::vector<std::vector<std::size_t>>& groups) {
  std::vector<std::vector<std::string>> named;
  for (const auto& g : groups) {
    named.emplace_back();
    for (auto i : g)
      named.back().push_back(nodes_.at(i).id);
  }
  net_.partition(named);
}

void sim_cluster::heal() {
  net_.heal();
}

void sim_cluster::drain() {
  for (auto& n : nodes_)
    if (n.up) {
      n.queue->drain();
      flush(n);
    }
}

bool sim_cluster::converged() const {
  const queue_node* ref = nullptr;
  for (const auto& n : nodes_)
    if (n.up) {
      ref = n.queue.get();
      break;
    }
  if (ref == nullptr)
    return false;
  // Cheapest test first: while work remains, some task is not ended.
  for (const auto& [id, task] : ref->replica().tasks()) {
    auto phase = task.state.phase();
    // Without a spec nobody can run it: only agreement is asked of it.
    if (task.has_spec && phase != wire::DONE && phase != wire::REMOVED
        && phase != wire::EXPIRED)
      return false;
  }
  for (const auto& n : nodes_)
    if (n.up && !n.queue->replica().same_as(ref->replica()))
      return false;
  // A task never acknowledged may have lost its ENQUEUE with its submitter:
  // replicas then agree on a spec-less entry. An accepted task may not.
  for (const auto& id : accepted_)
    if (!ref->replica().has_spec(id)
        && std::none_of(nodes_.begin(), nodes_.end(), [&](const sim_node& n) {
             return n.up && forgotten_by(*n.queue, id);
           }))
      return false;
  return true;
}

std::string sim_cluster::dump() const {
  std::ostringstream out;
  for (const auto& n : nodes_) {
    out << n.id << "#" << n.incarnation;
    if (!n.up) {
      out << " down\n";
      continue;
    }
    out << " seen:";
    for (const auto& [origin, seq] : n.queue->seen().entries())
      out << " " << origin << "=" << seq;
    out << " log=" << n.queue->log().size() << "\n";
    for (const auto& [id, t] : n.queue->replica().tasks())
      out << "  " << id << (t.has_spec ? "" : " (no spec)") << " "
          << wire::TaskPhase_Name(t.state.phase()) << " a"
          << t.state.attempt() << " by " << t.state.claim().node_id()
          << "\n";
  }
  return out.str();
}

sim_report sim_cluster::report() const {
  sim_report r = traffic_;
  r.seed = opts_.seed;
  r.tasks = submitted_.size();
  r.accepted = accepted_.size();
  r.removed = removed_.size();
  r.crashes = crashes_;
  r.converged = converged();
  for (const auto& [id, k] : executions_) {
    r.executions += k;
    r.duplicates += k - 1;
  }
  for (const auto& [id, k] : completions_)
    r.duplicate_completions += k - 1;
  std::vector<const sim_node*> up;
  for (const auto& n : nodes_)
    if (n.up) {
      up.push_back(&n);
      r.add(n.queue->counters());
    }
  if (up.empty()) {
    r.violations.push_back("no live node at the end");
    return r;
  }
  const auto& ref = up.front()->queue->replica();
  for (const auto& [id, task] : ref.tasks())
    if (task.state.phase() == wire::DONE)
      ++r.done;
  for (const auto* n : up)
    if (!n->queue->replica().same_as(ref))
      r.violations.push_back("replica " + n->id + " diverged from "
                             + up.front()->id);
  // A REMOVE counts once some live replica saw it (its remover may have
  // crashed with it, like an unacknowledged submit).
  auto remove_took = [&](const std::string& id) {
    auto ops = remove_ops_.find(id);
    if (ops == remove_ops_.end())
      return false;
    for (const auto& op : ops->second)
      for (const auto* n : up)
        if (n->queue->seen().seen(op.origin(), op.seq()))
          return true;
    return false;
  };
  for (const auto* n : up)
    for (const auto& id : accepted_) {
      const auto* t = n->queue->replica().find(id);
      bool removed = remove_took(id);
      bool forgotten = std::any_of(up.begin(), up.end(), [&](const sim_node* o) {
        return forgotten_by(*o->queue, id);
      });
      if ((t == nullptr || !t->has_spec) && forgotten) {
        ++r.forgotten;
      } else if (t == nullptr || !t->has_spec) {
        r.violations.push_back("accepted task " + id + " lost on " + n->id);
      } else if (!removed && t->state.phase() != wire::DONE
                 && t->state.phase() != wire::REMOVED
                 && !(t->state.phase() == wire::EXPIRED
                      && t->spec.expires_ms() > 0)) {
        r.violations.push_back("accepted task " + id + " not DONE on " + n->id
                               + " (phase "
                               + wire::TaskPhase_Name(t->state.phase())
                               + ")");
      } else if (removed && t->state.phase() != wire::REMOVED) {
        r.violations.push_back("removed task " + id + " not REMOVED on "
                               + n->id);
      }
    }
  for (const auto& v : policy_violations_)
    r.violations.push_back(v);
  for (const auto& [id, task] : ref.tasks()) {
    if (task.state.phase() == wire::EXPIRED)
      ++r.expired;
    if (task.has_spec)
      ++r.held;
  }
  // No replica holds, unended, a task another one forgot: it came back.
  for (const auto* n : up)
    for (const auto& [id, task] : n->queue->replica().tasks())
      if (task.has_spec && task.spec.has_created() && !is_terminal(task.state.phase()))
        for (const auto* other : up)
          if (other->queue->forgotten().contains(task.spec.created()))
            r.violations.push_back("task " + id + " forgotten by " + other->id
                                   + " is back on " + n->id);
  if (r.tasks > 0) {
    auto tasks = static_cast<double>(r.tasks);
    r.messages_per_task = static_cast<double>(r.queue_messages) / tasks;
    r.heartbeats_per_task = static_cast<double>(r.running_heartbeats) / tasks;
    r.bytes_per_task = static_cast<double>(r.queue_bytes) / tasks;
  }
  return r;
}

// -- the scripted scenario ------------------------------------------------------

sim_report run_simulation(const sim_options& opts) {
  sim_cluster cluster(opts);
  std::mt19937_64 script(opts.seed ^ 0x5ce7a210ULL);
  auto in = [&](millis lo, millis hi) {
    return hi <= lo ? lo
                    : lo + static_cast<millis>(draw(
                        script, static_cast<std::uint64_t>(hi - lo)));
  };
  struct event {
    millis at;
    int kind; // 0 submit, 1 remove, 2 crash, 3 restart, 4 partition, 5 heal
    std::size_t arg;
  };
  std::vector<event> events;
  auto submit_end = opts.submit_at_ms + opts.submit_spread_ms;
  for (std::size_t t = 0; t < opts.tasks; ++t)
    events.push_back({in(opts.submit_at_ms, submit_end), 0, t});
  for (std::size_t k = 0; k < opts.removes; ++k)
    events.push_back(
      {in(opts.submit_at_ms + opts.submit_spread_ms / 2, opts.faults_until_ms),
       1, 0});
  for (std::size_t k = 0; k < opts.crashes; ++k) {
    auto at = in(opts.submit_at_ms, opts.faults_until_ms - opts.down_ms);
    auto victim = static_cast<std::size_t>(draw(script, opts.nodes));
    events.push_back({at, 2, victim});
    events.push_back({at + opts.down_ms, 3, victim});
  }
  if (opts.partition) {
    auto at = in(opts.submit_at_ms, opts.faults_until_ms - opts.partition_ms);
    events.push_back({at, 4, 0});
    events.push_back({at + opts.partition_ms, 5, 0});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](auto& a, auto& b) { return a.at < b.at; });

  auto some_up = [&](std::size_t hint) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < cluster.size(); ++k) {
      auto i = (hint + k) % cluster.size();
      if (cluster.is_up(i))
        return i;
    }
    return std::nullopt;
  };
  std::vector<std::string> submitted;
  millis last_restart = -opts.settle_ms;
  for (const auto& e : events) {
    cluster.run_until(e.at);
    switch (e.kind) {
      case 0:
        if (auto i = some_up(draw(script, opts.nodes))) {
          wire::TaskSpec spec;
          spec.set_id("s" + std::to_string(opts.seed) + "-t"
                      + std::to_string(e.arg));
          spec.set_kind("sim");
          spec.set_payload(std::string(32, 'x'));
          spec.set_priority(static_cast<int>(draw(script, 3)));
          // Drawn only when asked for, so the runs of other options keep
          // their seeds' scripts.
          auto share = [&](double p) {
            return p > 0 && static_cast<double>(draw(script, 1'000'000)) < p * 1e6;
          };
          // Times a user gives are read on the submitting node's clock.
          auto clock = cluster.clock_of(*i);
          if (share(opts.delayed))
            spec.set_not_before_ms(clock + in(0, opts.delay_max_ms));
          if (share(opts.expiring))
            spec.set_expires_ms(clock + 1 + in(0, opts.expire_max_ms));
          submitted.push_back(cluster.submit(*i, spec));
        }
        break;
      case 1:
        if (!submitted.empty())
          if (auto i = some_up(draw(script, opts.nodes)))
            cluster.remove(*i, submitted[draw(script, submitted.size())]);
        break;
      case 2: {
        // One failure at a time: an acknowledged task is held by two
        // replicas, so it survives any single crash once the restarted
        // node has caught up.
        bool all_up = true;
        for (std::size_t i = 0; i < cluster.size(); ++i)
          all_up &= cluster.is_up(i);
        if (all_up && e.at - last_restart >= opts.settle_ms)
          cluster.crash(e.arg);
        break;
      }
      case 3:
        if (!cluster.is_up(e.arg)) {
          cluster.restart(e.arg);
          last_restart = e.at;
        }
        break;
      case 4: {
        std::vector<std::size_t> order(cluster.size());
        for (std::size_t i = 0; i < order.size(); ++i)
          order[i] = i;
        for (std::size_t i = order.size(); i > 1; --i)
          std::swap(order[i - 1], order[draw(script, i)]);
        auto half = order.size() / 2;
        cluster.partition({{order.begin(), order.begin() + half},
                           {order.begin() + half, order.end()}});
        break;
      }
      case 5:
        cluster.heal();
        break;
    }
  }
  cluster.heal();
  for (std::size_t i = 0; i < cluster.size(); ++i)
    cluster.restart(i);
  millis first = opts.submit_at_ms;
  // What still waits in a node's mailboxes may change its replica: the
  // run is over once the cluster is converged with nothing waiting.
  auto settled = [&] {
    if (!cluster.converged())
      return false;
    cluster.drain();
    return cluster.converged();
  };
  while (cluster.now() < opts.max_time_ms && !settled())
    cluster.run_until(cluster.now() + 50);
  cluster.drain();
  if (opts.linger_ms > 0 && cluster.converged()) {
    cluster.run_until(cluster.now() + opts.linger_ms);
    cluster.drain();
  }
  if (opts.timeline_every_ms > 0)
    cluster.sample_timeline(); // the end, whatever the sampling period
  auto report = cluster.report();
  report.timeline = cluster.timeline();
  if (report.converged) {
    report.converged_at_ms = cluster.now();
    report.makespan_ms = cluster.now() - first;
  } else {
    report.violations.push_back("no convergence within "
                                + std::to_string(opts.max_time_ms) + " ms");
    report.details = cluster.dump();
  }
  return report;
}

} // namespace dice
