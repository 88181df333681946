#include "communication/communication_machine.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "common/defaults.hpp"
#include "vocabulary/queue_messages.hpp"
#include "common/hashes.hpp"

namespace dice {

namespace {

// Ops are kept and resent without the transport's header.
wire::Message body_only(const wire::Message& m) {
  wire::Message copy = m;
  copy.clear_cluster_id();
  copy.clear_sender_id();
  copy.clear_sender_addr();
  copy.clear_incarnation();
  copy.clear_sequence();
  copy.clear_timestamp_ms();
  return copy;
}

wire::OpId* op_field(wire::Message& op) {
  switch (op.body_case()) {
    case wire::Message::kEnqueue:
      return op.mutable_enqueue()->mutable_op();
    case wire::Message::kDequeue:
      return op.mutable_dequeue()->mutable_op();
    case wire::Message::kRemove:
      return op.mutable_remove()->mutable_op();
    case wire::Message::kInfo:
      return op.mutable_info()->mutable_op();
    default:
      return nullptr;
  }
}

} // namespace

communication_machine::communication_machine(std::string id,
                                             std::string origin,
                                             queue_config cfg, bool joins)
  : id_(std::move(id)),
    origin_(std::move(origin)),
    cfg_(std::move(cfg)),
    log_(cfg_.op_log_limit),
    joins_(joins) {
  prefetch_ = cfg_.prefetch;
  // This node's own earlier incarnations are superseded from the start.
  if (auto self = split_origin(origin_))
    newest_incarnation_[self->first] = self->second;
}

wire::OpId communication_machine::next_op() const {
  return make_op_id(origin_, next_seq_);
}

void communication_machine::on(const ev::originate& e, millis,
                               ev::events& out) {
  auto op = e.op;
  auto* field = op_field(op);
  if (field == nullptr)
    return;
  auto seq = next_seq_++;
  *field = make_op_id(origin_, seq);
  seen_.observe(origin_, seq);
  ++heartbeat_changes_;
  log_.add(origin_, seq, op);
  ++counters_.ops_sent;
  if (e.ack)
    awaiting_ack_.emplace(seq, task_id_of(op));
  out.push_back(ev::broadcast{op, e.hold_ms});
  out.push_back(ev::merge_message{std::move(op), false});
  // No peer can hold an op just made; alone, nobody needs to.
  if (e.ack && alone())
    check_acks(out);
}

void communication_machine::on(const ev::send_to& e, millis,
                               ev::events& out) {
  send(e.peer, e.message, out);
}

void communication_machine::send(const std::string& peer, wire::Message m,
                                 ev::events& out) {
  out.push_back(ev::unicast{peer, std::move(m)});
}

void communication_machine::on(const ev::drain& e, millis, ev::events&) {
  if (draining_ == e.on)
    return;
  draining_ = e.on;
  ++heartbeat_changes_; // the next heartbeat says so
}

void communication_machine::on(const ev::prefetch_now& e, millis, ev::events&) {
  if (prefetch_ == e.count)
    return;
  prefetch_ = e.count;
  ++heartbeat_changes_; // the next heartbeat advertises it
}

void communication_machine::on(const ev::runner_changed& e, millis, ev::events&) {
  if (cfg_.runner == e.runner)
    return;
  cfg_.runner = e.runner;
  ++heartbeat_changes_; // the next heartbeat advertises it
}

void communication_machine::on(const ev::replica_digest& e, millis,
                               ev::events&) {
  if (digest_ != e.digest)
    ++heartbeat_changes_;
  digest_ = e.digest;
}

void communication_machine::on(const ev::tasks_forgotten& e, millis,
                               ev::events&) {
  log_.drop_tasks({e.task_ids.begin(), e.task_ids.end()});
  for (const auto& task_id : e.task_ids)
    acked_.erase(task_id);
}

void communication_machine::receive_op(const wire::Message& m, bool relayed,
                                       millis now, ev::events& out) {
  auto op = op_of(m);
  if (!op || task_id_of(m).empty()) {
    ++counters_.rejected;
    return;
  }
  bool new_origin = seen_.get(op->origin()) == 0 && !seen_.has_gaps(op->origin());
  if (pruned_.count(op->origin()) > 0 || !seen_.observe(op->origin(), op->seq())) {
    ++counters_.duplicate_ops;
    return;
  }
  if (new_origin)
    note_origin(op->origin(), now);
  ++heartbeat_changes_;
  ++counters_.ops_received;
  // Its enqueuer answers the submit once some replica holds the task.
  if (m.has_enqueue() && !relayed && !m.sender_id().empty())
    acks_owed_.emplace(m.sender_id(), op->origin());
  auto body = body_only(m);
  log_.add(op->origin(), op->seq(), body);
  out.push_back(ev::merge_message{std::move(body), !relayed});
}

void communication_machine::on_received(const wire::Message& m, millis now,
                                        ev::events& out) {
  const auto& peer = m.sender_id();
  if (m.has_heartbeat())
    on_peer_heartbeat(peer, m.incarnation(), m.heartbeat(), now, out);
  else
    on_message(m, now, out);
}

void communication_machine::on_message(const wire::Message& m, millis now,
                                       ev::events& out) {
  if (m.sender_id() == id_)
    return; // our own broadcast looped back
  switch (classify(m)) {
    case queue_message::none:
      return;
    case queue_message::operation:
      receive_op(m, false, now, out);
      return;
    case queue_message::running:
      if (m.info().task_id().empty() || m.info().claim().node_id().empty()) {
        ++counters_.rejected;
        return;
      }
      out.push_back(ev::merge_message{m, true});
      return;
    case queue_message::question:
      out.push_back(ev::question_heard{m.do_you_know_this_task().task_id(),
                                       m.sender_id(),
                                       m.do_you_know_this_task().direct()});
      return;
    case queue_message::answer: {
      const auto& spec = m.has_take_my_task()
                           ? m.take_my_task().spec()
                           : m.already_finished_task().spec();
      auto task_id = task_id_of(m);
      if (task_id.empty() || spec.id() != task_id) {
        ++counters_.rejected;
        return;
      }
      out.push_back(ev::answer_seen{task_id});
      bool forgotten = m.has_already_finished_task()
                       && m.already_finished_task().forgotten();
      out.push_back(ev::merge_task{spec, forgotten, *state_of(m), forgotten});
      return;
    }
    case queue_message::sync_request:
      on_sync_request(m, out);
      return;
    case queue_message::sync_reply:
      on_sync_reply(m, now, out);
      return;
    case queue_message::recovery:
      on_recovery(m, out);
      return;
    case queue_message::stable_point:
      on_stable_point(m);
      return;
    case queue_message::ack:
      on_ack(m, out);
      return;
  }
}

bool communication_machine::acks_for(const std::string& enqueuer,
                                     const std::string& origin) const {
  auto mine = rendezvous_hash(origin, id_);
  std::size_t better = 0;
  for (const auto& [peer, slots] : peer_seats_)
    if (peer != enqueuer && rendezvous_hash(origin, peer) < mine)
      ++better;
  return better < cfg_.ack_replicas;
}

void communication_machine::send_acks(ev::events& out) {
  for (const auto& [peer, origin] : acks_owed_) {
    if (!acks_for(peer, origin))
      continue;
    wire::Message m;
    seen_.only(origin).to_wire(m.mutable_ack()->mutable_seen());
    send(peer, std::move(m), out);
    ++counters_.acks_sent;
  }
  acks_owed_.clear();
}

void communication_machine::on_ack(const wire::Message& m, ev::events& out) {
  auto seen = version_vector::from_wire(m.ack().seen());
  strip_pruned(seen);
  // A lower bound of what the peer has seen of our origin, as its
  // heartbeat would say; kept only beside its heartbeats' reports.
  peers_.acked(m.sender_id(), m.incarnation(), seen);
  check_acks(out, &seen);
}

// -- anti-entropy -------------------------------------------------------------

void communication_machine::fill_heartbeat(wire::Heartbeat* hb) const {
  hb->clear_versions();
  if (superseded_.empty() || versions_bytes() <= cfg_.heartbeat_versions_bytes) {
    seen_.to_wire(hb->mutable_versions());
  } else {
    // Over the budget with superseded origins some peer still catches up
    // on (the settled ones left already): every current origin, then the
    // superseded ones, newest first, while they fit. A peer reads an
    // origin left out as one this replica pruned; the oldest are the ones
    // most likely settled and about to leave everywhere.
    std::vector<std::pair<millis, std::string>> newest_first;
    std::size_t bytes = 0;
    auto entry_bytes = [this](const std::string& origin) {
      wire::Heartbeat one;
      seen_.only(origin).to_wire(one.mutable_versions());
      return one.ByteSizeLong();
    };
    for (const auto& [origin, seq] : seen_.entries())
      if (auto s = superseded_.find(origin); s != superseded_.end())
        newest_first.emplace_back(s->second, origin);
      else
        bytes += entry_bytes(origin);
    std::sort(newest_first.rbegin(), newest_first.rend());
    std::set<std::string> reported;
    for (const auto& [since, origin] : newest_first) {
      auto more = entry_bytes(origin);
      if (bytes + more > cfg_.heartbeat_versions_bytes)
        break;
      bytes += more;
      reported.insert(origin);
    }
    // One vector, so the origins with gaps share one beyond budget.
    version_vector kept;
    for (const auto& [origin, seq] : seen_.entries())
      if (superseded_.count(origin) == 0 || reported.count(origin) > 0)
        kept.raise_to(seen_.only(origin));
    kept.to_wire(hb->mutable_versions());
  }
  hb->set_replica_digest(digest_);
  // What the claim matching counts as this node's seats on every node.
  hb->mutable_info()->set_slots(static_cast<std::uint32_t>(cfg_.slots));
  hb->mutable_info()->set_prefetch(static_cast<std::uint32_t>(prefetch_));
  hb->mutable_info()->set_draining(draining_);
  if (cfg_.runner)
    cfg_.runner->to_wire(hb->mutable_info());
}

std::vector<runner_capabilities> communication_machine::runners() const {
  std::vector<runner_capabilities> all{cfg_.runner.value_or(runner_capabilities{})};
  auto peers = peer_runners();
  all.insert(all.end(), peers.begin(), peers.end());
  return all;
}

std::vector<runner_capabilities> communication_machine::peer_runners() const {
  std::vector<runner_capabilities> all;
  all.reserve(peer_seats_.size());
  for (const auto& [peer, said] : peer_seats_)
    all.push_back(said.runner);
  return all;
}

void communication_machine::tell_live(ev::events& out) {
  if (!slots_changed_)
    return;
  slots_changed_ = false;
  out.push_back(ev::live_nodes{peer_seats_.size() + 1, peer_seats_});
}

void communication_machine::on_peer_heartbeat(const std::string& peer,
                                              std::uint64_t incarnation,
                                              const wire::Heartbeat& hb,
                                              millis now, ev::events& out) {
  if (peer.empty() || peer == id_)
    return;
  // Back, or restarted: it speaks for itself, and may die again.
  unrecovered_.erase(peer);
  recovered_.erase(peer);
  note_incarnation(peer, incarnation, now);
  auto reported = version_vector::from_wire(hb.versions());
  strip_pruned(reported);
  // A partial report lists only the origins that changed lately
  // (heartbeat_versions): joined into the stored one, which stays a lower
  // bound of what the peer has seen. What the peer leaves out, or how its
  // replica compares with ours, only a whole report says.
  bool whole = !hb.versions_partial();
  // Ops the peer held in its earlier reports (a heartbeat ago or more) and
  // we still lack were lost, not merely in flight (peer_versions keeps a
  // few of them, not the reports: with hundreds of peers, each vector
  // holding hundreds of origins, copies add up).
  bool lost_ops = peers_.knows(peer, incarnation) && peers_.lacking(peer, seen_);
  // Same ops seen yet different replicas, two reports running: the
  // difference was learnt outside the op log (an unknown-task answer whose
  // ENQUEUE is lost for good), so only a snapshot can carry it.
  bool differs = whole && reported == seen_ && hb.replica_digest() != digest_;
  bool diverged = differs && differed_.count(peer) > 0;
  if (differs)
    differed_.insert(peer);
  else if (whole)
    differed_.erase(peer);
  peers_.update(peer, incarnation, reported, kept_of(reported), whole, seen_,
                now);
  met_peer_ = true;
  if (whole)
    forget_unreported_superseded(peer, reported);
  // Every heartbeat of every peer passes here: note a change in O(log n)
  // rather than comparing the whole map (quadratic in a large cluster).
  ev::seats said;
  if (hb.has_info())
    said = {hb.info().slots(), hb.info().prefetch(), hb.info().draining(),
            runner_capabilities::from_wire(hb.info())};
  auto [at, added] = peer_seats_.emplace(peer, said);
  if (added || !(at->second == said)) {
    at->second = said;
    slots_changed_ = true;
    ++seats_changes_;
  }
  tell_live(out);
  check_acks(out);
  // A snapshot coming in from another peer brings what this one has too:
  // asking this one as well would start a second transfer over the first
  // (one silent for a few sync intervals is given up).
  bool snapshot_elsewhere = snapshot_ && snapshot_->peer != peer
                            && now - snapshot_->heard < 3 * cfg_.sync_interval_ms;
  if (now >= next_sync_ && (lost_ops || diverged) && !snapshot_elsewhere)
    request_sync(peer, now, !lost_ops, out);
}

void communication_machine::request_sync(const std::string& peer, millis now,
                                         bool snapshot, ev::events& out) {
  wire::Message m;
  auto* req = m.mutable_sync_request();
  seen_.to_wire(req->mutable_have());
  // A snapshot under way from this peer continues where it stopped: a lost
  // chunk costs one chunk, not the whole transfer.
  if (snapshot_ && snapshot_->peer == peer) {
    snapshot = true;
    req->set_snapshot_after(snapshot_->cursor);
  }
  req->set_want_snapshot(snapshot);
  send(peer, std::move(m), out);
  next_sync_ = now + cfg_.sync_interval_ms;
  ++counters_.sync_requests;
}

void communication_machine::on_sync_request(const wire::Message& m,
                                            ev::events& out) {
  if (m.sender_id().empty()) {
    ++counters_.rejected;
    return;
  }
  const auto& req = m.sync_request();
  auto have = version_vector::from_wire(req.have());
  std::optional<std::vector<wire::Message>> ops;
  if (!req.want_snapshot())
    ops = log_.missing(have, seen_, cfg_.sync_batch_ops);
  if (!ops) {
    // The ops it lacks left our log, or ops cannot tell what differs: the
    // replica itself goes over, from known_tasks.
    out.push_back(ev::snapshot_wanted{
      m.sender_id(), req.want_snapshot() ? req.snapshot_after() : "", seen_});
    return;
  }
  if (ops->empty())
    return; // nothing the asker lacks
  // Replies of one wire budget each, so every datagram stays within a
  // frame; all but the last say more follow, and the asker asks again for
  // what is still missing once the last one is in.
  std::vector<wire::Message> replies;
  std::size_t bytes = 0;
  std::size_t total = 0;
  for (auto& op : *ops) {
    auto size = op.ByteSizeLong() + 4; // the op, its tag and length
    if (total + size > cfg_.sync_reply_bytes && !replies.empty())
      break;
    // The reply's own tag and length, and the continued flag.
    if (replies.empty() || (bytes + size > cfg_.wire_budget && bytes > 8)) {
      replies.emplace_back().mutable_sync_reply();
      bytes = 8;
    }
    bytes += size;
    total += size;
    *replies.back().mutable_sync_reply()->add_ops() = std::move(op);
  }
  for (std::size_t i = 0; i < replies.size(); ++i) {
    replies[i].mutable_sync_reply()->set_continued(i + 1 < replies.size());
    ++counters_.sync_replies;
    send(m.sender_id(), std::move(replies[i]), out);
  }
}

void communication_machine::on_sync_reply(const wire::Message& m, millis now,
                                          ev::events& out) {
  const auto& r = m.sync_reply();
  // Before anything of the snapshot: tasks it names as forgotten are
  // dropped, and refused if a chunk still carries them.
  if (r.forgotten_size() > 0)
    out.push_back(ev::merge_forgotten{{r.forgotten().begin(), r.forgotten().end()}});
  for (const auto& op : r.ops())
    if (classify(op) == queue_message::operation)
      receive_op(op, true, now, out);
  if (r.snapshot_size() > 0 || r.snapshot_versions_size() > 0) {
    for (const auto& t : r.snapshot())
      if (!t.spec().id().empty())
        out.push_back(ev::merge_task{t.spec(), t.spec_unknown(), t.state()});
    auto step = snapshot_chunk(m.sender_id(), r, now);
    // The whole snapshot is in (its last chunk may come before others of
    // the same answer): its origins came without their ops.
    if (step == snapshot_step::complete)
      note_origins(now);
    if (r.continued())
      return; // the rest of this answer is on its way
    if (step == snapshot_step::more
        || (step == snapshot_step::out_of_order && snapshot_
            && snapshot_->peer == m.sender_id())) {
      // The answer's last chunk: ask for the next ones (after a lost chunk,
      // from the last one taken in order).
      request_sync(m.sender_id(), now, true, out);
      return;
    }
    if (step == snapshot_step::out_of_order)
      return; // of a transfer given up: asking again would restart it
  } else if (r.continued()) {
    return; // the rest of this answer is on its way
  }
  // A partial batch: ask straight away for the rest.
  if (peers_.lacking(m.sender_id(), seen_))
    request_sync(m.sender_id(), now, false, out);
}

communication_machine::snapshot_step
communication_machine::snapshot_chunk(const std::string& peer,
                                      const wire::SyncReply& r, millis now) {
  // Merging a chunk's tasks is always safe; raising our version vector is
  // not until every chunk arrived. The first chunk's vector is the one to
  // raise to: each later chunk was cut later, and task states only grow, so
  // together the chunks hold every op that vector names.
  if (r.snapshot_after().empty())
    snapshot_ = snapshot_progress{peer,
                                  version_vector::from_wire(r.snapshot_versions()),
                                  "", {}, now};
  else if (!snapshot_ || snapshot_->peer != peer)
    return snapshot_step::out_of_order; // of a transfer no longer under way
  auto& p = *snapshot_;
  p.heard = now;
  // The chunk holds every task in (after, last]; the last one holds every
  // task after `after`.
  auto last = r.snapshot_size() > 0 ? r.snapshot(r.snapshot_size() - 1).spec().id()
                                    : r.snapshot_after();
  bool final = !r.snapshot_more();
  if (r.snapshot_after() > p.cursor) {
    p.ahead[r.snapshot_after()] = {last, final};
    return snapshot_step::out_of_order;
  }
  auto before = p.cursor;
  bool complete = final;
  p.cursor = std::max(p.cursor, last);
  // Chunks that waited for this one.
  while (!complete && !p.ahead.empty() && p.ahead.begin()->first <= p.cursor) {
    auto [end, ends] = p.ahead.begin()->second;
    p.ahead.erase(p.ahead.begin());
    p.cursor = std::max(p.cursor, end);
    complete = ends;
  }
  if (!complete)
    return p.cursor != before || r.snapshot_after().empty()
             ? snapshot_step::more
             : snapshot_step::out_of_order;
  strip_pruned(p.base);
  seen_.raise_to(p.base);
  ++heartbeat_changes_;
  snapshot_.reset();
  ++counters_.snapshots_applied;
  return snapshot_step::complete;
}

// -- membership and the coordinator role ------------------------------------------

void communication_machine::on_peer_dead(const std::string& peer, millis,
                                         ev::events& out) {
  if (peer.empty() || peer == id_)
    return;
  peers_.forget(peer);
  if (peer_seats_.erase(peer) > 0) {
    slots_changed_ = true;
    ++seats_changes_;
  }
  differed_.erase(peer);
  if (snapshot_ && snapshot_->peer == peer)
    snapshot_.reset(); // another peer's snapshot starts over
  tell_live(out);
  // The coordinator's announcement may come before our own detection.
  bool announced = recovered_.count(peer) > 0;
  if (!announced && acts_as_coordinator())
    recover(peer, out);
  else if (!announced)
    unrecovered_.insert(peer); // the coordinator's announcement will come
  check_acks(out);
}

void communication_machine::recover(const std::string& peer,
                                    ev::events& out) {
  unrecovered_.erase(peer);
  if (coordinated_)
    recovered_.insert(peer);
  ++counters_.recoveries;
  out.push_back(ev::recover_member{peer, coordinated_});
}

void communication_machine::on_recovery(const wire::Message& m,
                                        ev::events& out) {
  const auto& r = m.recovery();
  if (r.node_id().empty() || m.sender_id().empty()) {
    ++counters_.rejected;
    return;
  }
  ++counters_.recoveries_heard;
  unrecovered_.erase(r.node_id());
  recovered_.insert(r.node_id());
  if (r.adopted_size() > 0)
    out.push_back(ev::tasks_adopted{
      m.sender_id(), {r.adopted().begin(), r.adopted().end()}});
}

void communication_machine::set_coordinator(const std::string& coordinator,
                                            millis now, ev::events& out) {
  bool was = acts_as_coordinator();
  coordinated_ = true;
  coordinator_ = coordinator;
  if (!acts_as_coordinator())
    return;
  // Newly elected: recover the members that died while nobody (or a
  // coordinator that died too) was in charge.
  auto pending = unrecovered_;
  for (const auto& peer : pending)
    recover(peer, out);
  if (!was)
    next_stable_point_ = now;
}

void communication_machine::compact_to(
  const std::map<std::string, std::uint64_t>& floors) {
  log_.compact([&floors](const std::string& origin) {
    auto f = floors.find(origin);
    return f == floors.end() ? std::uint64_t{0} : f->second;
  });
}

void communication_machine::announce_stable_point(millis now,
                                                  ev::events& out) {
  auto floors = peers_.floors(seen_);
  compact_to(floors);
  next_stable_point_ = now + cfg_.stable_point_interval_ms;
  if (peers_.empty())
    return;
  wire::Message m;
  auto* sp = m.mutable_stable_point();
  for (const auto& [origin, seq] : floors) {
    if (seq == 0)
      continue;
    auto* e = sp->add_stable();
    e->set_origin(origin);
    e->set_seq(seq);
  }
  ++counters_.stable_points_sent;
  out.push_back(ev::broadcast{std::move(m)});
}

void communication_machine::on_stable_point(const wire::Message& m) {
  // One voice: only the coordinator we follow decides what is stable.
  if (!coordinated_ || m.sender_id() != coordinator_ || coordinator_ == id_) {
    ++counters_.rejected;
    return;
  }
  std::map<std::string, std::uint64_t> floors;
  for (const auto& e : m.stable_point().stable())
    if (!e.origin().empty())
      floors[e.origin()] = e.seq();
  compact_to(floors);
  ++counters_.stable_points_applied;
}

// -- acknowledgements and time ----------------------------------------------------

void communication_machine::check_acks(ev::events& out,
                                       const version_vector* acker) {
  if (awaiting_ack_.empty())
    return;
  if (alone())
    return ack(awaiting_ack_.begin(), awaiting_ack_.end(), out);
  peers_.for_each([&](const version_vector& v) { ack_seen(v, out); });
  if (acker != nullptr)
    ack_seen(*acker, out);
}

void communication_machine::ack_seen(const version_vector& v, ev::events& out) {
  if (awaiting_ack_.empty())
    return;
  ack(awaiting_ack_.begin(), awaiting_ack_.upper_bound(v.get(origin_)), out);
  auto gaps = v.beyond_gaps().find(origin_);
  if (gaps == v.beyond_gaps().end() || awaiting_ack_.empty())
    return;
  // Only the seqs seen past a gap that still wait: the set may be long.
  auto last = awaiting_ack_.rbegin()->first;
  for (auto s = gaps->second.lower_bound(awaiting_ack_.begin()->first);
       s != gaps->second.end() && *s <= last; ++s)
    if (auto i = awaiting_ack_.find(*s); i != awaiting_ack_.end())
      ack(i, std::next(i), out);
}

void communication_machine::ack(
  std::map<std::uint64_t, std::string>::iterator first,
  std::map<std::uint64_t, std::string>::iterator last, ev::events& out) {
  for (auto i = first; i != last; ++i) {
    acked_.insert(i->second);
    out.push_back(ev::acknowledged{i->second});
  }
  awaiting_ack_.erase(first, last);
}

bool communication_machine::acknowledged(const std::string& task_id) const {
  return acked_.count(task_id) > 0;
}

void communication_machine::tick(millis now, ev::events& out) {
  if (joins_ && !met_peer_) {
    if (!joining_since_)
      joining_since_ = now;
    else if (now - *joining_since_ >= join_wait_ms) {
      joins_ = false; // nobody answered: alone after all
      check_acks(out);
    }
  }
  if (coordinated_ && acts_as_coordinator()) {
    if (now >= next_stable_point_)
      announce_stable_point(now, out);
  } else if ((!coordinated_ || coordinator_.empty()) && now >= next_compact_
             && log_.size() > 0) {
    // No election, or none won yet: each replica compacts on its own.
    compact_to(peers_.floors(seen_));
    next_compact_ = now + cfg_.compact_interval_ms;
  }
  bool early = heartbeat_over_budget_ && now >= next_early_prune_;
  if (!superseded_.empty() && (now >= next_prune_ || early)) {
    prune(now);
    if (now >= next_prune_)
      next_prune_ = now + cfg_.stable_point_interval_ms;
    // Over the budget with an origin some peer still catches up on: look
    // again once a sync round may have settled it.
    next_early_prune_ = now + cfg_.sync_interval_ms;
  }
  check_acks(out);
}

std::optional<millis> communication_machine::next_due() const {
  std::optional<millis> due;
  auto at = [&](millis t) { due = due ? std::min(*due, t) : t; };
  if (!awaiting_ack_.empty())
    at(0); // replicated() may turn true with any peer's report
  if (coordinated_ && acts_as_coordinator())
    at(next_stable_point_);
  else if ((!coordinated_ || coordinator_.empty()) && log_.size() > 0)
    at(next_compact_);
  if (!superseded_.empty()) {
    auto oldest = superseded_.begin()->second;
    for (const auto& [origin, since] : superseded_)
      oldest = std::min(oldest, since);
    at(std::max(next_prune_, oldest + cfg_.prune_superseded_after_ms));
    if (heartbeat_over_budget_)
      at(next_early_prune_);
  }
  return due;
}

communication_machine make_communication_machine(const machine_config& c) {
  return communication_machine(c.node_id, origin_of(c.node_id, c.incarnation),
                               c.queue, c.joins);
}

} // namespace dice
