#include "fuzz_inputs.hpp"

#include <cstdio>
#include <cstdlib>

#include "broadcast_bridge/bundle.hpp"
#include "broadcast_bridge/hmac.hpp"
#include "broadcast_bridge/topic.hpp"

namespace dice::fuzz {

bridge_state make_receiver(bool keyed) {
  return bridge_state({cluster_id, receiver_id, "127.0.0.1:7400", 1},
                      keyed ? cluster_key : std::string{});
}

std::string sign(const std::string& message_bytes) {
  wire::Envelope env;
  env.set_version(defaults::protocol_version);
  env.set_message(message_bytes);
  env.set_auth_tag(hmac_sha256(cluster_key, message_bytes));
  return env.SerializeAsString();
}

namespace {

wire::TaskSpec spec(const std::string& id) {
  wire::TaskSpec s;
  s.set_id(id);
  s.set_kind("echo");
  s.set_payload("hello");
  s.set_priority(3);
  s.set_enqueuer(sender_id);
  s.set_enqueue_time_ms(1'700'000'000'000);
  auto* d = s.add_data_objects();
  d->set_node_id(receiver_id);
  d->set_count(2);
  return s;
}

wire::Claim claim() {
  wire::Claim c;
  c.set_node_id(sender_id);
  c.set_data_objects(1);
  c.set_battery(80);
  c.set_dequeue_time_ms(1'700'000'000'500);
  c.set_device_class(1);
  return c;
}

void version(wire::VersionEntry* v) {
  v->set_origin(sender_id);
  v->set_seq(4);
  v->add_beyond(6);
  v->add_beyond_runs(8); // seqs 8 and 9
  v->add_beyond_runs(2);
}

wire::OpId op(std::uint64_t seq) {
  wire::OpId o;
  o.set_origin(sender_id);
  o.set_seq(seq);
  return o;
}

} // namespace

bool same_header(const wire::Message& a, const wire::Message& b) {
  return a.cluster_id() == b.cluster_id() && a.sender_id() == b.sender_id()
         && a.sender_addr() == b.sender_addr()
         && a.incarnation() == b.incarnation() && a.sequence() == b.sequence()
         && a.timestamp_ms() == b.timestamp_ms();
}

std::vector<wire::Message> sample_bodies() {
  std::vector<wire::Message> out;
  auto add = [&] { return &out.emplace_back(); };

  auto* hb = add()->mutable_heartbeat();
  auto* peer = hb->add_peers();
  peer->set_id("third");
  peer->set_addr("127.0.0.3:7400");
  peer->set_incarnation(2);
  peer->set_state(wire::SUSPECT);
  version(hb->add_versions());
  hb->mutable_info()->set_battery(90);
  hb->mutable_info()->set_slots(2);
  hb->set_replica_digest(0x0123456789abcdef);
  add()->mutable_connect();
  add()->mutable_connect_rep()->add_peers()->set_id("third");

  auto* enq = add()->mutable_enqueue();
  *enq->mutable_spec() = spec("t1");
  *enq->mutable_op() = op(1);
  auto* deq = add()->mutable_dequeue();
  deq->set_task_id("t1");
  deq->set_attempt(1);
  *deq->mutable_claim() = claim();
  *deq->mutable_op() = op(2);
  auto* rm = add()->mutable_remove();
  rm->set_task_id("t1");
  *rm->mutable_op() = op(3);
  auto* info = add()->mutable_info();
  info->set_task_id("t1");
  info->set_phase(wire::DONE);
  info->set_attempt(1);
  *info->mutable_claim() = claim();
  info->set_result("done");
  info->set_time_ms(1'700'000'001'000);
  *info->mutable_op() = op(4);
  add()->mutable_do_you_know_this_task()->set_task_id("t2");
  auto* take = add()->mutable_take_my_task();
  *take->mutable_spec() = spec("t2");
  take->mutable_state()->set_phase(wire::RUNNING);
  *take->mutable_state()->mutable_claim() = claim();
  auto* fin = add()->mutable_already_finished_task();
  fin->set_task_id("t2");
  fin->mutable_state()->set_phase(wire::FAILED);
  fin->mutable_state()->set_reason("exit 1");
  *fin->mutable_spec() = spec("t2");

  auto* sreq = add()->mutable_sync_request();
  version(sreq->add_have());
  sreq->set_want_snapshot(true);
  auto* srep = add()->mutable_sync_reply();
  auto* retransmitted = srep->add_ops();
  *retransmitted->mutable_enqueue() = *enq;
  *srep->add_snapshot() = *take;
  version(srep->add_snapshot_versions());
  srep->set_snapshot_more(true);

  auto* el = add()->mutable_election();
  el->set_algorithm("bully");
  el->set_kind("AYUp");
  el->set_candidate(sender_id);
  el->set_round(1);
  el->add_members(receiver_id);
  auto* rec = add()->mutable_recovery();
  rec->set_node_id("third");
  rec->add_requeued("t1");
  rec->add_adopted("t2");
  version(add()->mutable_stable_point()->add_stable());
  version(add()->mutable_ack()->add_seen());

  wire::Message bundle;
  for (std::size_t i = 3; i < 6; ++i)
    *bundle.mutable_bundle()->add_parts() = out[i];
  out.push_back(std::move(bundle));
  return out;
}

wire::Message with_header(wire::Message body, std::uint64_t sequence) {
  body.set_cluster_id(cluster_id);
  body.set_sender_id(sender_id);
  body.set_sender_addr("127.0.0.2:7400");
  body.set_incarnation(1);
  body.set_sequence(sequence);
  body.set_timestamp_ms(1'700'000'000'000);
  return body;
}

std::vector<std::string> split_datagrams(const std::uint8_t* data,
                                         std::size_t size) {
  std::string all(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    auto at = all.find(datagram_separator, from);
    if (at == std::string::npos) {
      out.push_back(all.substr(from));
      return out;
    }
    out.push_back(all.substr(from, at - from));
    from = at + datagram_separator.size();
  }
}

std::string join_datagrams(const std::vector<std::string>& datagrams) {
  std::string out;
  for (std::size_t i = 0; i < datagrams.size(); ++i)
    out += (i ? datagram_separator : "") + datagrams[i];
  return out;
}

void open_and_route(bridge_state& receiver,
                    const std::vector<std::string>& datagrams) {
  for (const auto& d : datagrams) {
    auto opened = receiver.open(d);
    const auto& c = receiver.counters();
    require(c.datagrams_received == c.accepted + c.dropped(),
            "every datagram is accepted or dropped for one reason");
    if (!opened)
      continue;
    require(opened->cluster_id() == cluster_id, "accepted from our cluster");
    require(!opened->sender_id().empty() && opened->sender_id() != receiver_id,
            "accepted from a named peer");
    require(opened->sequence() != 0, "accepted with a sequence number");
    require(well_formed_bundle(*opened), "accepted bundles are well formed");
    auto parts = opened->has_bundle()
                   ? static_cast<std::size_t>(opened->bundle().parts_size())
                   : 1;
    // The header alone: a copy of the whole message would cost more than
    // the decoding under test.
    wire::Message header;
    header.set_cluster_id(opened->cluster_id());
    header.set_sender_id(opened->sender_id());
    header.set_sender_addr(opened->sender_addr());
    header.set_incarnation(opened->incarnation());
    header.set_sequence(opened->sequence());
    header.set_timestamp_ms(opened->timestamp_ms());
    auto messages = unbundle(std::move(*opened));
    require(messages.size() == parts, "unbundle yields every part");
    for (auto& m : messages) {
      require(!topic_of(m).empty(), "every part routes to a subsystem");
      require(same_header(m, header), "every part carries the bundle's header");
    }
  }
}

} // namespace dice::fuzz
