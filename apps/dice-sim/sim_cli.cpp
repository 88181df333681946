#include "sim_cli.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <boost/program_options.hpp>

#include "super_peers/super_peer_config.hpp"

namespace po = boost::program_options;

namespace dice {

namespace {

void probability(const char* name, double p) {
  if (!(p >= 0.0 && p <= 1.0)) // NaN fails too
    throw std::runtime_error(std::string("--") + name
                             + " must be a probability in [0,1]");
}

/// Heartbeats every `ms` instead of the default: each timeout that counts
/// missed heartbeats keeps its ratio to the interval, so slower heartbeats
/// mean slower failure detection, not false deaths.
void scale_heartbeats(sim_options& o, long long ms) {
  auto base = o.membership.heartbeat_interval_ms;
  if (ms == base)
    return;
  auto scaled = [&](millis m) { return static_cast<millis>(m * ms / base); };
  o.membership.suspect_after_ms = scaled(o.membership.suspect_after_ms);
  o.membership.dead_after_ms = scaled(o.membership.dead_after_ms);
  o.membership.heartbeat_interval_ms = ms;
  o.queue.running_timeout_ms = scaled(o.queue.running_timeout_ms);
  o.queue.running_interval_ms = scaled(o.queue.running_interval_ms);
  o.queue.restore_hold_ms = scaled(o.queue.restore_hold_ms);
}

} // namespace

sim_cli parse_sim_cli(int argc, const char* const* argv) {
  sim_cli out;
  auto& o = out.sim;
  const sim_options defaults;
  long long nodes = 16, tasks = 256, crashes = 0, removes = 0;
  long long partition_ms = 0, max_time_ms = 0, timeline_every_ms = 100;
  long long heartbeat_ms = defaults.membership.heartbeat_interval_ms;
  std::string super_peers;
  bool fixed_witness_tries = false;
  po::options_description desc(
    "dice-sim: one seeded, deterministic simulation of a whole DiCE cluster:\n"
    "every node is the composition dice-node runs (its actors, sealing,\n"
    "membership, election, locks, causal events, journal) on a simulated\n"
    "lossy network and disk, in virtual time under CAF's test scheduler.\n"
    "Exit status: 0 sound and converged, 1 an invariant was violated or the\n"
    "cluster did not converge, 2 bad options.\n"
    "Usage: dice-sim [options]\nOptions");
  std::string spread_help = "submissions spread over this span, from --submit-at-ms";
  auto partition_help =
    "split the cluster in two halves for this many ms, then heal (0: never; "
    "bare flag: "
    + std::to_string(defaults.partition_ms) + ")";
  // clang-format off
  desc.add_options()
    ("help,h", "print this help and exit")
    ("nodes", po::value(&nodes)->default_value(nodes), "simulated nodes (1..4096)")
    ("tasks", po::value(&tasks)->default_value(tasks), "tasks submitted, at random live nodes")
    ("task-ms", po::value(&o.task_ms)->default_value(defaults.task_ms), "virtual time one execution takes")
    ("submit-at-ms", po::value(&o.submit_at_ms)->default_value(defaults.submit_at_ms), "virtual time of the first submission: the cluster forms before it")
    ("submit-spread-ms", po::value(&o.submit_spread_ms)->default_value(defaults.submit_spread_ms), spread_help.c_str())
    ("loss", po::value(&o.faults.loss)->default_value(0.0, "0"), "probability that a datagram is lost, per link")
    ("duplicate", po::value(&o.faults.duplicate)->default_value(0.0, "0"), "probability that a datagram arrives twice")
    ("max-delay-ms", po::value(&o.faults.max_delay)->default_value(defaults.faults.max_delay), "datagram delay is uniform in [1, this] ms (reorders)")
    ("partition", po::value(&partition_ms)->default_value(0)->implicit_value(defaults.partition_ms), partition_help.c_str())
    ("crash", po::value(&crashes)->default_value(0), "crash-and-restart events at random times, one node down at a time: one that falls while a node is down or catching up is skipped (the report says how many happened)")
    ("down-ms", po::value(&o.down_ms)->default_value(defaults.down_ms), "how long a crashed node stays down")
    ("journal", po::bool_switch(&o.journal), "each node keeps a journal across its crashes and restores its replica from it at restart, as dice-node does (default: a restarted node starts empty)")
    ("clock-skew-ms", po::value(&o.clock_skew_ms)->default_value(0), "each node's clock runs ahead of virtual time by a random 0..this, drawn again at each restart")
    ("heartbeat-ms", po::value(&heartbeat_ms)->default_value(heartbeat_ms), "membership and RUNNING heartbeat interval; every silence judged from them (suspect, dead, running timeout, restore hold) scales with it, as an operator of a large cluster would set dice-node's timings")
    ("super-peers", po::value(&super_peers)->default_value("off"), "super-peer election on every node: auto (ceil(sqrt(N))), off, or a count; on, queue broadcasts go through the super-peers")
    ("multicast", po::bool_switch(&o.multicast), "broadcasts go to an IPv4 multicast group, as with dice-node's --multicast: one datagram leaves the sender, each node's copy is lost, duplicated and delayed on its own link (needs --super-peers off)")
    ("event-resenders", po::value(&o.event_resenders)->default_value(o.event_resenders), "holders besides the origin that resend a causal event to a node whose digest lacks it, a different few each sync (0: every holder, every time)")
    ("locks", po::bool_switch(&o.locks), "every third task names one cluster-wide lock; the run checks that no two of them ran at once, unless a node was declared dead while it ran")
    ("remove", po::value(&removes)->default_value(0), "tasks removed (removeByID) during the run")
    ("fail", po::value(&o.fail_probability)->default_value(0.0, "0"), "probability that an execution fails transiently (never the last attempt)")
    ("retry-backoff-ms", po::value(&o.queue.retry_backoff_ms)->default_value(defaults.queue.retry_backoff_ms), "wait before a failed execution's retry, doubled per failed attempt (half of it drawn); the run checks no retry starts earlier")
    ("delayed", po::value(&o.delayed)->default_value(0.0, "0"), "share of the tasks delayed: not started before their submit plus a random 0..--delay-max-ms on the submitting node's clock")
    ("delay-max-ms", po::value(&o.delay_max_ms)->default_value(defaults.delay_max_ms), "longest delay of a --delayed task")
    ("expiring", po::value(&o.expiring)->default_value(0.0, "0"), "share of the tasks that expire: not started after their submit plus a random 1..--expire-max-ms (they end EXPIRED)")
    ("expire-max-ms", po::value(&o.expire_max_ms)->default_value(defaults.expire_max_ms), "latest expiry of an --expiring task")
    ("keep-finished-ms", po::value(&o.queue.keep_finished_ms)->default_value(defaults.queue.keep_finished_ms), "how long a task that ended stays in the replicas before every node forgets it")
    ("linger-ms", po::value(&o.linger_ms)->default_value(0), "once converged, run this much longer and check the retention: every ended task forgotten on every replica, none back or run again (forgotten and held in JSON)")
    ("max-time-ms", po::value(&max_time_ms)->default_value(0), "give up (not converged) at this virtual time (0: 90 s plus 4x the ideal makespan)")
    ("claim-window-ms", po::value(&o.queue.claim_window_ms)->default_value(defaults.queue.claim_window_ms), "how long a staggered claim waits for competing claims")
    ("matched-claim-window-ms", po::value(&o.queue.matched_claim_window_ms)->default_value(defaults.queue.matched_claim_window_ms), "how long a claim of a task the common matching gave the node waits (0: it starts at once)")
    ("submit-claim-ms", po::value(&o.queue.submit_claim_ms)->default_value(defaults.queue.submit_claim_ms), "a task a node submits while it has a free slot starts there at once if offered within this long of its submit (-1: never)")
    ("start-mark-delay-ms", po::value(&o.queue.start_mark_delay_ms)->default_value(defaults.queue.start_mark_delay_ms), "how long after a slot took an execution its node tells the others it began (a start mark: running, not claimed ahead)")
    ("prefetch", po::value(&o.queue.prefetch)->default_value(defaults.queue.prefetch), "tasks a node claims beyond its slots")
    ("prefetch-auto", po::bool_switch(&o.queue.prefetch_auto), "the claims beyond the slots follow how long a node's executions take, from --prefetch up to 4 (dice-node's --prefetch auto)")
    ("finished-hold-ms", po::value(&o.queue.finished_hold_ms)->default_value(defaults.queue.finished_hold_ms), "how long a DONE or FAILED report may wait to share a datagram")
    ("claim-stagger-ms", po::value(&o.queue.claim_stagger_ms)->default_value(defaults.queue.claim_stagger_ms), "delay, and per-rank delay, of a free slot's claim when the common matching gave it no task (0: no matching, all claim at once)")
    ("requeue-questions", po::value(&o.queue.requeue_questions)->default_value(defaults.queue.requeue_questions), "questions to a silent executor, requeue_confirm_ms apart, before its task is re-queued")
    ("witness-tries", po::value(&o.queue.resolver.witness_tries)->default_value(defaults.queue.resolver.witness_tries), "unknown-task questions sent to a witness alone (a node whose message named the task) before any is broadcast; one more per doubling of the live cluster beyond 64 nodes unless --fixed-witness-tries")
    ("resolve-tries", po::value(&o.queue.resolver.resolve_tries)->default_value(defaults.queue.resolver.resolve_tries), "unknown-task questions in all, the witnesses' included (and the extra ones a large cluster adds); anti-entropy does the rest")
    ("fixed-witness-tries", po::bool_switch(&fixed_witness_tries), "--witness-tries at every cluster size (dice-node --unknown-direct-tries N), not one more per doubling beyond 64 nodes (its auto)")
    ("seed", po::value(&o.seed)->default_value(defaults.seed), "seed of the whole run: the same seed replays it")
    ("timeline", po::value(&out.timeline), "write the run's timeline to this CSV file: per sample the time, tasks finished, claims lost, duplicate executions, nodes up, and per node the tasks it finished (draw it with bench/queue_sim/timeline.py)")
    ("timeline-every-ms", po::value(&timeline_every_ms)->default_value(timeline_every_ms), "virtual time between two timeline samples")
    ("json", po::bool_switch(&out.json), "print the report as one JSON object on the last line")
    ("dump", po::bool_switch(&out.dump), "if the run did not converge, print every replica task by task");
  // clang-format on
  std::ostringstream usage;
  usage << desc;
  out.usage = usage.str();

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::runtime_error(e.what());
  }
  if (vm.count("help")) {
    out.help = true;
    return out;
  }
  if (nodes < 1 || nodes > 4096)
    throw std::runtime_error("--nodes must be in 1..4096");
  if (fixed_witness_tries)
    o.queue.resolver.scale_witness_tries = false;
  if (tasks < 0 || tasks > 10'000'000)
    throw std::runtime_error("--tasks must be in 0..10000000");
  if (crashes < 0 || removes < 0)
    throw std::runtime_error("--crash and --remove must not be negative");
  if (partition_ms < 0 || max_time_ms < 0 || o.down_ms <= 0 || o.task_ms < 0
      || o.submit_spread_ms < 0 || o.clock_skew_ms < 0 || o.submit_at_ms < 0
      || o.delay_max_ms < 0 || o.expire_max_ms < 0 || o.linger_ms < 0)
    throw std::runtime_error("durations must not be negative (--down-ms "
                             "positive)");
  if (heartbeat_ms < o.membership.failure_check_ms || heartbeat_ms > 600'000)
    throw std::runtime_error("--heartbeat-ms must be in "
                             + std::to_string(o.membership.failure_check_ms)
                             + "..600000");
  scale_heartbeats(o, heartbeat_ms);
  if (o.faults.max_delay < o.faults.min_delay)
    throw std::runtime_error("--max-delay-ms must be at least "
                             + std::to_string(o.faults.min_delay));
  if (auto why = o.queue.problem(); !why.empty())
    throw std::runtime_error(why);
  probability("loss", o.faults.loss);
  probability("duplicate", o.faults.duplicate);
  probability("fail", o.fail_probability);
  probability("delayed", o.delayed);
  probability("expiring", o.expiring);
  if (timeline_every_ms <= 0)
    throw std::runtime_error("--timeline-every-ms must be positive");
  if (!out.timeline.empty())
    o.timeline_every_ms = timeline_every_ms;
  try {
    o.super_peers = parse_super_peers(super_peers);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  if (o.multicast && o.super_peers.mode != super_peer_mode::off)
    throw std::runtime_error("--multicast needs --super-peers off: the group "
                             "reaches every node without relays");
  if (o.faults.loss >= 1.0)
    throw std::runtime_error("--loss must be below 1 (nothing would arrive)");

  o.nodes = static_cast<std::size_t>(nodes);
  o.tasks = static_cast<std::size_t>(tasks);
  o.crashes = static_cast<std::size_t>(crashes);
  o.removes = static_cast<std::size_t>(removes);
  o.partition = partition_ms > 0;
  if (o.partition)
    o.partition_ms = partition_ms;
  // Faults must fit between the first submission and faults_until_ms.
  auto longest = std::max(o.down_ms + o.settle_ms,
                          o.partition ? o.partition_ms : millis{0});
  o.faults_until_ms = std::max(o.faults_until_ms,
                               o.submit_at_ms + o.submit_spread_ms + longest);
  if (max_time_ms > 0) {
    o.max_time_ms = max_time_ms;
  } else {
    // Every task once over every node, plus room for faults and catch-up.
    auto ideal = o.task_ms * static_cast<millis>(o.tasks)
                 / static_cast<millis>(o.nodes);
    o.max_time_ms = o.faults_until_ms + 90'000 + 4 * ideal;
  }
  return out;
}

} // namespace dice
