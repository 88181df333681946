#pragma once
// Defaults shared by several parts, and those of the parts that have no
// config struct of their own yet. Membership, elections, locks and causal
// events keep theirs, documented, in their config structs
// (membership_config, election_config, mutex_config, causal_config), from
// which dice-node's --help takes them.
#include <cstddef>
#include <cstdint>

#include "common/time.hpp"

namespace dice::defaults {

// -- wire ---------------------------------------------------------------------
constexpr std::uint32_t protocol_version = 1;
/// Largest datagram we send or accept; well under the 64 KiB UDP limit.
constexpr std::size_t max_datagram_bytes = 60 * 1024;
/// Broadcasts sent at once share datagrams of at most this size (0: never).
/// One Ethernet frame's payload: IP loses a fragmented datagram whole when
/// any fragment is lost, so larger bundles would multiply loss on a LAN.
constexpr std::size_t bundle_bytes = 1400;
/// Bytes a sealed datagram adds around a message's body, besides the
/// cluster id, node id and address it carries: varint header fields,
/// framing, the HMAC tag (see broadcast_bridge/wire_budget.hpp).
constexpr std::size_t envelope_overhead = 128;
/// Body bytes of one queue reply (sync reply, snapshot chunk, Recovery):
/// bundle_bytes less the envelope with ids and an address of 64 bytes each.
/// dice-node derives it from --bundle-bytes and its own ids.
constexpr std::size_t wire_budget = bundle_bytes - envelope_overhead - 3 * 64;
/// Sequence numbers remembered per (sender, incarnation) against replays.
constexpr std::uint64_t replay_window = 1024;
/// How often the replay windows' floors are written to the data dir (and at
/// a clean stop): after kill -9, datagrams of at most this last stretch
/// before the crash could be replayed once at the restarted node.
constexpr millis replay_floors_save_ms = 1000;
/// A node without a data dir waits at most this long at start for its
/// peers to say which incarnation of its id they heard (it stops at once
/// when every peer it asked has answered). Longer than a heartbeat
/// interval, so that a peer that still sends it heartbeats is heard, and
/// asked, even when no --peer is given. 0: no probe (the start time).
constexpr millis incarnation_probe_ms = 500;
/// The probe is sent again this often to peers that did not answer yet.
constexpr millis incarnation_probe_retry_ms = 100;
/// Incarnation notices a node sends per second at most: a replayed probe
/// (it asserts nothing, so it is always answered) costs one notice.
constexpr std::uint32_t incarnation_notices_per_second = 32;

// -- network --------------------------------------------------------------------
/// Loopback: a node started with no options is a working single node, and
/// reaching other machines (0.0.0.0) asks for a cluster key.
constexpr const char* listen = "127.0.0.1:7400";
constexpr const char* http = "127.0.0.1:8400";
constexpr const char* cluster_id = "dice";

} // namespace dice::defaults

// -- replicated queue (seed 000) ----------------------------------------------
namespace dice::defaults {

/// How often the ready queue looks again at tasks waiting for their locks.
constexpr millis task_lock_recheck_ms = 50;

/// How long a DEQUEUE claim that the common matching did not give this
/// node (a staggered claim, see claim_stagger_ms) waits for competing
/// claims before executing.
constexpr millis claim_window_ms = 100;
/// The same for a claim of a task the common matching gave this node.
/// Nodes whose views differ (one has not heard yet of another's claim or
/// end) now and then match the same task; this window lets the worse
/// claim lose before it starts. In dice-sim (1-10 ms delays, 5 ms steps;
/// bench/README.md) 0 ms left 2-9% of tasks started twice, 5 ms 0-1.2%,
/// 10 ms none; on loopback a rival's claim arrives well within 5 ms.
/// Prefetch claims while the slot still runs, so the window rarely delays
/// a task of a busy node; it is part of an idle node's latency.
constexpr millis matched_claim_window_ms = 5;
/// Claims a node holds beyond its slots: the next task is claimed while
/// the current one runs (as Celery's prefetch) and starts the moment a
/// slot frees; it waits in the executor's queue, with RUNNING heartbeats
/// like an execution. 0: a slot claims only once it is free.
constexpr std::size_t prefetch = 1;
/// A free slot that the common matching left without a task (see
/// ready_queue/claim_matching.hpp) claims only after this plus its
/// rendezvous rank among the idle nodes times this (estimated from its own
/// hash of the task), so the matched node claims first and usually only one
/// node claims. Keep it above the network delay. 0: no matching, every
/// free slot claims the head of its own walk at once.
constexpr millis claim_stagger_ms = 50;
/// Replicas that acknowledge a node's ENQUEUEs at once (by unicast), so
/// its submit is answered without waiting for a heartbeat: two, in case
/// one Ack is lost; heartbeats still carry what every replica holds.
constexpr std::size_t ack_replicas = 2;
/// Besides the winner, about this many nodes tell a losing claimer that a
/// better claim holds the task (either message may be lost).
constexpr std::size_t claim_helpers = 2;
/// RUNNING heartbeats of an execution, one per task per interval; as the
/// membership heartbeat's, so each rides in its datagram.
constexpr millis running_interval_ms = 400;
/// An execution that a slot took tells the others it began (its start
/// mark: "running", not "claimed" ahead of a slot) this long after, unless
/// it ended first: a task shorter than this sends no extra message (its
/// DONE carries its start time), and a display lags at most this.
constexpr millis start_mark_delay_ms = 100;
/// How long the report that ends an execution (DONE or FAILED) may wait
/// to share a datagram with the next broadcast, usually the node's claim
/// for the seat the end freed: alone they were a fifth of a round's
/// datagrams at 32 nodes. It is part of every task's latency (submit to
/// result seen by the submitter, 4 nodes: 6.4 ms at 0, 7.6 ms at 1, 9.3 ms
/// at 3; bench/README.md). 0: it leaves at once.
constexpr millis finished_hold_ms = 1;
/// No RUNNING heartbeat for this long: the task goes back to READY with the
/// next attempt (several intervals, so a lossy link alone rarely triggers it).
constexpr millis running_timeout_ms = 1600;
/// Random extra wait before announcing a re-queue, so usually one node does.
constexpr millis requeue_jitter_ms = 300;
/// Back-off range of an unknown-task answer (algorithm 2); the first node to
/// answer silences the others.
constexpr millis answer_backoff_min_ms = 5;
constexpr millis answer_backoff_max_ms = 250;
/// A message may overtake the ENQUEUE it follows: wait this long before
/// asking about an unknown task.
constexpr millis ask_delay_ms = 60;
/// How long an asker waits for an answer before asking again.
constexpr millis resolve_window_ms = 600;
/// DO_YOU_KNOW_THIS_TASK questions per unknown task; anti-entropy does the rest.
constexpr std::uint32_t resolve_tries = 3;
/// Tasks one node executes at once (dice-node defaults to the core count).
constexpr std::size_t slots = 1;
/// Executions of a task that may fail before it ends FAILED.
constexpr std::uint32_t max_attempts = 3;
/// Wait before a failed task's second attempt (a task's own backoff
/// overrides it); each later attempt waits twice the one before, half of it
/// drawn at random so that retries of many tasks do not fall together.
/// 0: the next attempt is ready at once, as before per-task policies.
constexpr millis retry_backoff_ms = 0;
/// How long a task that ended (done, failed, expired, canceled, removed)
/// stays in every replica, its journal and its snapshots before it is
/// forgotten (a task's own keep_for_ms overrides it). A day, as Celery's
/// result_expires: long enough to read a result, short enough that a
/// replica holds the tasks of a day, not of every day.
constexpr millis keep_finished_ms = 86'400'000;
/// Replicas forget at multiples of this (wall clock), so that they forget
/// the same tasks at the same moment and their digests keep agreeing.
constexpr millis forget_grid_ms = 1000;
/// A forgotten task's id is remembered this long besides its number, to
/// refuse late messages that name it by id alone (claims, heartbeats):
/// longer than any datagram stays in flight.
constexpr millis forgotten_ids_ms = 30'000;
/// The most often a node returns the memory of forgotten tasks to the
/// system (a walk of the heap): a few MiB a time at 1,000 tasks/s.
constexpr millis memory_release_ms = 10'000;
/// A node restarted on a journal that held unended tasks claims none of
/// them for this long: time to hear a peer (heartbeats every 400 ms), find
/// itself behind and catch up, so that it learns which of them ended, or
/// were forgotten, while it was down before it runs any again.
constexpr millis restore_hold_ms = 2000;
/// The longest wait between two attempts (Celery's retry_backoff_max).
constexpr millis retry_backoff_max_ms = 600'000;
/// Queue operations kept for retransmission; beyond it, state transfer.
constexpr std::size_t op_log_limit = 4096;
/// Operations that answer one SyncRequest (in replies of wire_budget
/// bytes): under heavy loss a node misses a fifth of all ops, and it must
/// catch up faster than executions time out.
constexpr std::size_t sync_batch_ops = 128;
/// Bytes of replies (several datagrams of wire_budget each) that answer one
/// SyncRequest: what one 56 KB reply carried before replies were cut to a
/// frame, so a snapshot of 10,000 tasks still takes a few dozen round trips.
constexpr std::size_t sync_reply_bytes = max_datagram_bytes - 4096;
/// Least time between two SyncRequests of a node that is behind.
/// A lost request or reply costs this much catch-up time: keep it a few
/// round trips, not more.
constexpr millis sync_interval_ms = 100;
/// Least time between two op-log compactions: each looks at every peer's
/// version vector, too costly for every tick of a large cluster.
constexpr millis compact_interval_ms = 250;
/// How often the coordinator announces the stable point (the ops every live
/// member has seen) up to which every replica compacts its op log.
constexpr millis stable_point_interval_ms = 1000;
/// An origin (a node incarnation) that a newer incarnation of its node has
/// superseded issues no more ops: after this long, once no live peer
/// reports fewer of its ops, it leaves the version vector, so heartbeats do
/// not grow with every restart (a heartbeat carried every origin ever seen:
/// after ~50 restarts it outgrew a datagram). Long enough for op sync to
/// have brought its ops everywhere; a replica still missing some then gets
/// them by snapshot (equal vectors, different digests).
constexpr millis prune_superseded_after_ms = 30'000;
/// Pruned origins remembered, so their ops relayed late are not taken for
/// new ones (oldest forgotten first; ~40 bytes each).
constexpr std::size_t pruned_origins_kept = 65'536;
/// Bytes the version vector may take in a heartbeat; past it, superseded
/// origins that every live peer has settled leave at once instead of after
/// prune_superseded_after_ms (restarts faster than that would otherwise
/// grow every heartbeat). One frame (bundle_bytes, 1400) less what else a
/// heartbeat datagram carries: the sealed envelope with a 16-byte address
/// (~110), gossip_peers_per_heartbeat peers of ~40 bytes (~320) and the
/// node info and digest (~50). 32 current origins of a dice-node (id of 3-8
/// characters, a 13-digit incarnation) take 750-900 of it.
constexpr std::size_t heartbeat_versions_bytes = 920;
/// Bytes of ops seen past a gap that a version vector reports on the wire
/// (see version_vector::to_wire): a snapshot's first chunk must still hold
/// a task beside it, and a heartbeat its current origins.
constexpr std::size_t wire_beyond_bytes = 192;
/// Unfinished tasks of a dead enqueuer adopted by one recovery (announced in
/// as many Recovery messages of wire_budget bytes as they need).
constexpr std::size_t recovery_adopt_limit = 1000;
/// Tasks submitted to one node and not yet held by another replica, at
/// most. A submit that would pass it is refused whole (HTTP 429), so a
/// node whose peers fall behind tells its clients to wait instead of
/// piling up ENQUEUEs nobody has acknowledged. Two submits of the largest
/// size (10,000) fit.
constexpr std::size_t submit_window = 20'000;
/// Tasks of one submit handed to known_tasks as one message: their
/// ENQUEUEs leave together, 128 filling about eight datagrams, and the
/// peers start acknowledging the first chunks while later ones are built.
constexpr std::size_t submit_chunk = 128;
/// Submitted tasks handed to known_tasks and not yet acknowledged by
/// another replica, at most; later chunks wait in the facade and go as
/// acknowledgements come back. Ten submits of 10,000 sent at once
/// overflowed the peers' UDP receive buffers (about 150 full datagrams
/// each by default): the lost ENQUEUEs were caught up 128 ops per sync
/// interval and 100,000 tasks took minutes. 1,024 tasks are about 64
/// datagrams.
constexpr std::size_t submit_in_flight = 1024;

} // namespace dice::defaults

// -- executor -------------------------------------------------------------------
namespace dice::defaults {

/// A `shell` task running longer than this is killed (its process group).
constexpr millis shell_timeout_ms = 60'000;
/// A task's result travels in one datagram (as its payload does).
constexpr std::size_t max_result_bytes = 32 * 1024;
/// Output (stdout and stderr together) kept of a `shell` task; the rest is
/// read and dropped so the child never blocks on a full pipe.
constexpr std::size_t shell_max_output_bytes = 16 * 1024;
/// Bounds of the dice-node --slots option.
constexpr std::size_t max_slots = 1024;

} // namespace dice::defaults

// -- journal (the replica on disk) ------------------------------------------------
namespace dice::defaults {

/// dice-node keeps its journal here unless --data-dir says otherwise
/// ("none": memory only); one subdirectory per cluster and node id.
constexpr const char* data_dir_root = "/var/lib/dice";
/// Used instead when the process may not write data_dir_root (not root):
/// $XDG_STATE_HOME/dice, else $HOME/.local/state/dice.
constexpr const char* user_data_dir = ".local/state/dice";
/// Appends reach the kernel before the node answers; fsync gathers the
/// appends of this long into one (a machine crash loses at most this much,
/// a killed process nothing).
constexpr millis journal_sync_batch_ms = 5;
/// The journal is rewritten as one record per task once it is larger than
/// this and four times its size after the last rewrite, or the replica
/// shrank to a quarter of what that rewrite held. Small, so a replica that
/// forgot what it held leaves a small file: at 8 MiB the file of a node
/// holding nothing stayed anywhere between 0.9 and 3.9 MiB, set by where
/// the schedule stood (bench/retention). A rewrite costs what it writes,
/// at most a quarter of what was appended since the last one.
constexpr std::size_t journal_compact_min_bytes = 64 * 1024;

} // namespace dice::defaults

// -- HTTP API ------------------------------------------------------------------
namespace dice::defaults {

/// Requests served at once. A connection holds a thread only once its
/// request has arrived whole (waiting_room reads it), and a handler waits
/// at most 5 s for the actors, or a lock request its wait_ms (at most
/// 10 s), so these bound the requests in progress, not the clients. Each
/// thread that has served keeps about 0.3 MiB the node cannot return
/// (the entry node of bench/retention: 28 MiB after 300,000 tasks with
/// 16 threads, 24 with 4); 8 leave room for lock waits on 2 cores.
constexpr std::size_t http_threads = 8;
/// Connections open at once: waiting for (the rest of) a request, queued
/// for a thread or being served. A new connection beyond it first evicts
/// the connection that has waited longest in the waiting room; if every
/// one is being served it is answered 503 and closed at once. Bounds the node's
/// file descriptors under a burst without queueing /health behind it.
constexpr std::size_t http_max_connections = 1024;
/// A request must arrive whole (headers and body) within this of its first
/// byte, and its answer must be taken within this: a client that trickles
/// bytes is cut then, so it cannot hold a buffer (or, for a body read on
/// a server thread, a thread) for ever. 256 KiB, the largest body,
/// takes 2 s at 1 Mbit/s.
constexpr millis http_request_timeout_ms = 5000;
/// A connection that sends nothing (a new one, or one kept alive between
/// requests) is closed after this. It waits without a thread, so an idle
/// connection costs a file descriptor, no more.
constexpr millis http_idle_timeout_ms = 5000;
/// Connections the kernel queues before they are accepted. httplib listens
/// with a backlog of 5: a burst of connections overflowed it, the kernel
/// dropped their SYNs and clients retried after 1 s, 3 s, ..., /health
/// included. The kernel caps it at net.core.somaxconn.
constexpr int http_listen_backlog = 1024;
/// How long POST /tasks lets the queue take a submit. A submit the queue
/// reaches later is refused whole: the client has had its 503 by then and
/// must not find the tasks enqueued anyway (issue 17: 45,000 such tasks).
constexpr millis http_submit_accept_ms = 2000;
/// How long POST /tasks waits for another replica to hold every task:
/// 201 if it does in time, else 202 with every id (the tasks are enqueued
/// and will be replicated; the submit need not be repeated).
constexpr millis http_submit_replicated_ms = 5000;
/// A bearer token shorter than this is refused as guessable.
constexpr std::size_t http_token_min_bytes = 16;

// -- observing (issue 20) ---------------------------------------------------
/// How often --battery auto reads /sys/class/power_supply again: a laptop
/// under load drains about a percent a minute, and a read is two small
/// files, so a minute keeps the ranking current at no cost.
constexpr millis battery_refresh_ms = 60'000;

} // namespace dice::defaults

// -- dice test: the distributed test runner (seed 004) --------------------------
namespace dice::defaults {

/// The interpreter pytest runs under (found in /usr/local/bin:/usr/bin:/bin):
/// Debian's python3 with python3-pytest.
constexpr const char* tester_python = "python3";
/// Project blobs a node keeps (least recently used evicted first): a few
/// dozen projects of the usual size, so repeated runs fetch nothing.
constexpr std::uint64_t tester_blob_cache_bytes = 1024ULL * 1024 * 1024;
/// Largest project archive POST /evaluation takes; larger uploads get 413
/// before their body is read. The whole body is held in memory once.
constexpr std::uint64_t tester_max_upload_bytes = 64ULL * 1024 * 1024;
/// A workspace unpacked from a blob may hold at most this (a zip bomb
/// stops here) ...
constexpr std::uint64_t tester_max_unpacked_bytes = 1024ULL * 1024 * 1024;
/// ... and at most this many entries.
constexpr std::uint64_t tester_max_entries = 200'000;
/// The longest a module may run (`dice test --timeout` is capped by it).
constexpr millis tester_max_timeout_ms = 3'600'000;
/// A module's time limit when the evaluation names none.
constexpr millis tester_default_timeout_ms = 600'000;
/// Output kept of one failing test (its traceback's tail): a module's
/// result travels in the replicated queue, within max_result_bytes.
constexpr std::size_t tester_output_bytes = 2048;
/// Runner output read per module run, beyond which it is dropped (only
/// its tail is reported, when the runner crashed or hung).
constexpr std::size_t tester_runner_output_bytes = 256 * 1024;
/// How often a node tells its peers where its HTTP API serves blobs.
constexpr millis tester_hello_ms = 1000;
/// Peers the accepting node copies a new blob to before it answers, so
/// the evaluation survives the accepting node's death.
constexpr std::size_t tester_blob_replicas = 2;
/// Most modules (tasks) one evaluation is split into.
constexpr std::size_t tester_max_modules = 10'000;
/// Module tasks an evaluation aims at per live runner node: enough for
/// longest-first to even out the nodes' ends, few enough that light pytest
/// modules share an interpreter start (see evaluation_plan.hpp).
constexpr std::size_t tester_tasks_per_runner = 4;
/// Test modules take priorities 0 (an evaluation's first module) down to
/// -tester_priority_band (its later ones): a user task at the default
/// priority 0 is never outranked by a module, and modules of equal rank in
/// two evaluations share a priority, so the evaluations take turns.
constexpr std::int32_t tester_priority_band = 1000;

} // namespace dice::defaults
