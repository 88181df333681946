#include "options.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include "broadcast_bridge/keyring_file.hpp"
#include "common/power_supply.hpp"
#include "node/http_config.hpp"
#include "super_peers/super_peer_config.hpp"

namespace po = boost::program_options;

namespace dice {

namespace {

/// dice-node keeps its journal here unless --data-dir says otherwise
/// ("none": memory only); one subdirectory per cluster and node id.
constexpr const char* data_dir_root = "/var/lib/dice";
/// Used instead when the process may not write data_dir_root (not root):
/// $XDG_STATE_HOME/dice, else $HOME/.local/state/dice.
constexpr const char* user_data_dir = ".local/state/dice";

endpoint endpoint_option(const std::string& name, const std::string& text) {
  std::string err;
  auto ep = parse_endpoint(text, &err);
  if (!ep)
    throw std::runtime_error("--" + name + ": " + err);
  return *ep;
}

std::string cluster_key_from(const std::string& path) {
  std::string err;
  auto key = dice::read_key_file(path, err);
  if (key.empty())
    throw std::runtime_error("--cluster-key-file: " + err);
  return key;
}

/// A node that runs tests as root runs them as nobody, who must not read
/// the cluster key or the HTTP token: refused if others may read `path`.
void refuse_readable_secret(const std::string& option, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & S_IROTH))
    throw std::runtime_error("--tester as root: " + option + " '" + path
                             + "' is readable by other users, so by the tests (run as "
                               "nobody); chmod o-r it");
}

/// A whole number option within [lo, hi]; read as a signed number first so
/// that "-1" is an error, not a huge unsigned value.
long long ranged(const std::string& name, long long value, long long lo,
                 long long hi) {
  if (value < lo || value > hi)
    throw std::runtime_error("--" + name + " must be from " + std::to_string(lo)
                             + " to " + std::to_string(hi) + ", got "
                             + std::to_string(value));
  return value;
}

/// An option that is "auto" or a whole number, given as not "auto": the
/// number, or an error naming what it should be.
long long auto_or_number(const std::string& name, const std::string& value,
                         const std::string& what) {
  long long n = 0;
  std::size_t used = 0;
  try {
    n = std::stoll(value, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw std::runtime_error("--" + name + ": '" + value + "' is not auto or "
                             + what);
  return n;
}

/// --shell-allow values; an INI line may also list several, comma-separated.
std::vector<std::string> allow_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::istringstream parts(v);
    for (std::string p; std::getline(parts, p, ',');) {
      auto b = p.find_first_not_of(" \t");
      auto e = p.find_last_not_of(" \t");
      if (b == std::string::npos)
        throw std::runtime_error("--shell-allow: empty program name in '" + v + "'");
      out.push_back(p.substr(b, e - b + 1));
    }
  }
  return out;
}

/// Where a node keeps its journal unless told: the system's state
/// directory as root, the user's otherwise; one directory per cluster and
/// node, so nodes on one machine never share one.
std::string default_data_dir(const std::string& cluster, const std::string& id) {
  for (const auto* name : {&cluster, &id})
    if (name->find('/') != std::string::npos || *name == "." || *name == "..")
      throw std::runtime_error("--data-dir: '" + *name
                               + "' cannot name a directory; give --data-dir "
                                 "PATH or --data-dir none");
  std::filesystem::path root = data_dir_root;
  if (::geteuid() != 0) {
    const char* xdg = std::getenv("XDG_STATE_HOME");
    const char* home = std::getenv("HOME");
    if (xdg != nullptr && *xdg != '\0')
      root = std::filesystem::path(xdg) / "dice";
    else if (home != nullptr && *home != '\0')
      root = std::filesystem::path(home) / user_data_dir;
    else
      throw std::runtime_error("--data-dir: no HOME to keep the journal in; "
                               "give --data-dir PATH or --data-dir none");
  }
  return (root / cluster / id).string();
}

std::string default_id(const endpoint& listen) {
  char host[256] = "node";
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(listen.port);
}

} // namespace

node_options parse_node_options(int argc, const char* const* argv) {
  node_options out;
  auto& n = out.node;
  std::string config_file, listen, advertise, multicast, http, key_file,
    http_token_file, data_dir = "auto", sync = "batch", battery = "auto",
    unknown_strategy = "always_want", unknown_direct_tries = "auto",
    prefetch = "auto",
    super_peers = to_string(n.timing.super_peers);
  std::vector<std::string> peers, shell_allow;
  long long capacity = 0; // signed, so that a negative value is refused
  auto& q = n.queue;
  long long cores = std::max(1u, std::thread::hardware_concurrency());
  long long slots = cores, max_attempts = q.max_attempts,
            ack_replicas = static_cast<long long>(q.ack_replicas),
            claim_window = q.claim_window_ms, claim_stagger = q.claim_stagger_ms,
            matched_window = q.matched_claim_window_ms,
            submit_claim = q.submit_claim_ms,
            running_interval = q.running_interval_ms,
            running_timeout = q.running_timeout_ms,
            finished_hold = q.finished_hold_ms,
            shell_timeout = n.shell.timeout_ms,
            retry_backoff = q.retry_backoff_ms,
            retry_backoff_max = q.retry_backoff_max_ms,
            keep_finished = q.keep_finished_ms,
            sync_batch = n.sync_batch_ms,
            incarnation_probe = n.incarnation_probe_ms,
            gossip_peers = static_cast<long long>(n.timing.gossip_peers_per_heartbeat),
            scheduler_threads = static_cast<long long>(out.scheduler_threads),
            bundle_bytes = static_cast<long long>(n.limits.bundle_bytes),
            op_log_limit = static_cast<long long>(q.op_log_limit),
            shell_output = static_cast<long long>(n.shell.max_output_bytes),
            http_threads = static_cast<long long>(n.api.threads),
            http_max_connections = static_cast<long long>(n.api.max_connections),
            http_request_timeout = n.api.request_timeout_ms,
            http_idle_timeout = n.api.idle_timeout_ms,
            http_backlog = n.api.listen_backlog,
            http_submit_accept = n.api.submit_accept_ms,
            http_submit_replicated = n.api.submit_replicated_ms,
            submit_window = static_cast<long long>(q.submit_window),
            submit_in_flight = static_cast<long long>(q.submit_in_flight),
            device_class = q.device_class,
            battery_refresh = q.battery_refresh_ms;
  auto& tc = n.tester;
  long long tester_blob_cache_mb = static_cast<long long>(tc.blob_cache_bytes >> 20),
            tester_max_upload_mb = static_cast<long long>(tc.max_upload_bytes >> 20),
            tester_max_unpacked_mb = static_cast<long long>(tc.max_unpacked_bytes >> 20),
            tester_max_timeout_s = tc.max_timeout_ms / 1000,
            tester_output_bytes = static_cast<long long>(tc.output_bytes),
            tester_hello_ms = tc.hello_ms,
            tester_blob_replicas = static_cast<long long>(tc.blob_replicas);
  po::options_description desc("dice-node: one member of a DiCE cluster.\n"
                               "Usage: dice-node [options]\n"
                               "Every option may also be set in the INI file "
                               "given by --config (NAME = VALUE);\n"
                               "the command line wins. Options");
  // clang-format off
  desc.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("config", po::value(&config_file), "INI file with any of these options")
    ("id", po::value(&n.id), "node id, unique in the cluster (default: HOSTNAME-PORT)")
    ("listen", po::value(&listen)->default_value(defaults::listen), "UDP HOST:PORT to listen on; 0.0.0.0:PORT (other machines) needs --cluster-key-file or --insecure")
    ("advertise", po::value(&advertise), "HOST:PORT peers use to reach this node (default: the listen address; 127.0.0.1 if that is 0.0.0.0)")
    ("peer", po::value(&peers)->composing(), "seed peer HOST:PORT (repeatable); one is enough to learn everyone")
    ("multicast", po::value(&multicast), "broadcast via this IPv4 multicast GROUP:PORT instead of to each peer")
    ("http", po::value(&http)->default_value(defaults::http), "HTTP API HOST:PORT, or 'off'")
    ("http-token-file", po::value(&http_token_file), "file holding the HTTP API's bearer token (>= 16 printable bytes); every request but GET /health must then send 'Authorization: Bearer TOKEN'. Required when --http is not on loopback")
    ("http-tls-cert-file", po::value(&n.api.tls_cert_file), "PEM file of the HTTP API's certificate (and its chain): with --http-tls-key-file, the API, the dashboard and blob transfers between nodes speak HTTPS only")
    ("http-tls-key-file", po::value(&n.api.tls_key_file), "PEM file of the private key of --http-tls-cert-file")
    ("http-tls-ca-file", po::value(&n.api.tls_ca_file), "PEM file of the certificates that sign the other nodes' API certificates, checked on blob transfers (default: this node's own certificate, for a cluster sharing one)")
    ("http-threads", po::value(&http_threads)->default_value(http_threads), "HTTP requests served at once")
    ("http-max-connections", po::value(&http_max_connections)->default_value(http_max_connections), "HTTP connections open at once; a new one beyond evicts the longest idle one, or is answered 503 if none is idle")
    ("http-request-timeout-ms", po::value(&http_request_timeout)->default_value(http_request_timeout), "an HTTP request must arrive whole within this of its first byte, and its answer be taken within this, or the connection is cut")
    ("http-idle-timeout-ms", po::value(&http_idle_timeout)->default_value(http_idle_timeout), "an HTTP connection that sends nothing (new, or kept alive between requests) is closed after this")
    ("http-listen-backlog", po::value(&http_backlog)->default_value(http_backlog), "HTTP connections the kernel queues before they are accepted (capped by net.core.somaxconn)")
    ("http-submit-accept-ms", po::value(&http_submit_accept)->default_value(http_submit_accept), "POST /tasks: how long the queue may take to accept a submit; later it is refused whole (503, nothing enqueued)")
    ("wait-for-runner", po::bool_switch(&n.api.wait_for_runner), "POST /tasks: accept tasks of a kind (or a shell program) that no live member can run, to wait for a node that can; without it such a submit is refused with 400")
    ("http-submit-replicated-ms", po::value(&http_submit_replicated)->default_value(http_submit_replicated), "POST /tasks: how long to wait for another replica to hold every task (201); then 202 with every id")
    ("submit-window", po::value(&submit_window)->default_value(submit_window), "tasks submitted to this node and not yet held by another replica, at most; a submit that would pass it is refused whole (HTTP 429)")
    ("submit-in-flight", po::value(&submit_in_flight)->default_value(submit_in_flight), "submitted tasks sent to the peers and not yet acknowledged, at most; the rest of a burst waits and goes as acknowledgements come back")
    ("cluster-id", po::value(&n.cluster_id)->default_value(defaults::cluster_id), "datagrams of other clusters are dropped")
    ("cluster-key-file", po::value(&key_file), "file holding the shared key (>= 16 bytes); every datagram is HMAC-SHA256 signed with it. Once `dice keys` changed the keyring, the keyring kept in --data-dir replaces it at start; with --data-dir none such changes are lost on restart")
    ("insecure", po::bool_switch(&n.insecure), "allow listening off loopback without a cluster key")
    ("data-dir", po::value(&data_dir)->default_value(data_dir), "directory of the replica's journal and the incarnation counter; auto: /var/lib/dice/CLUSTER/ID as root, else $XDG_STATE_HOME/dice/CLUSTER/ID or ~/.local/state/dice/CLUSTER/ID; none: memory only (a restart of every node loses every task)")
    ("incarnation-probe-ms", po::value(&incarnation_probe)->default_value(incarnation_probe), "--data-dir none: how long the start waits at most for peers to say which incarnation of this id they heard, so that a restart with the clock set back is not ignored as an older one; ends once every peer asked answered; 0: no probe")
    ("sync", po::value(&sync)->default_value(sync), "when journal appends are fsynced: always (before the node answers), batch (within --sync-batch-ms; a killed process loses nothing, a machine crash at most that much) or none (left to the kernel)")
    ("sync-batch-ms", po::value(&sync_batch)->default_value(sync_batch), "--sync batch: appends of this long share one fsync")
    ("heartbeat-ms", po::value(&n.timing.heartbeat_interval_ms)->default_value(n.timing.heartbeat_interval_ms), "heartbeat interval")
    ("suspect-after-ms", po::value(&n.timing.suspect_after_ms)->default_value(n.timing.suspect_after_ms), "silence after which a peer is suspect")
    ("dead-after-ms", po::value(&n.timing.dead_after_ms)->default_value(n.timing.dead_after_ms), "silence after which a peer is dead")
    ("failure-check-ms", po::value(&n.timing.failure_check_ms)->default_value(n.timing.failure_check_ms), "how often silence is judged (at most the heartbeat interval)")
    ("gossip-peers", po::value(&gossip_peers)->default_value(gossip_peers), "peers listed in one heartbeat (the rest rotate through later ones)")
    ("super-peers", po::value(&super_peers)->default_value(super_peers), "super-peer election: auto (ceil(sqrt(N)) of the N live nodes), off, or a count; each live node is attached to one and sends its queue broadcasts through it (shown in GET /nodes)")
    ("max-datagram-bytes", po::value(&n.limits.max_datagram_bytes)->default_value(defaults::max_datagram_bytes), "larger datagrams are dropped")
    ("bundle-bytes", po::value(&bundle_bytes)->default_value(bundle_bytes), "broadcasts sent at once share datagrams up to this size (0: one message per datagram); replies and announcements are cut to fit it")
    ("op-log-limit", po::value(&op_log_limit)->default_value(op_log_limit), "queue operations kept for retransmission to a peer that missed them; one further behind gets the replica by state transfer")
    ("election", po::value(&n.election_algorithm)->default_value(n.election_algorithm), "coordinator election: bully, ring (Chang-Roberts), hs (Hirschberg-Sinclair), invitation or echo")
    ("capacity", po::value(&capacity)->default_value(0), "echo: this node's capacity (e.g. battery); the highest wins, ties to the higher id")
    ("election-timeout-ms", po::value(&n.election.answer_timeout_ms)->default_value(n.election.answer_timeout_ms), "election: how long to wait for a peer's answer")
    ("election-check-ms", po::value(&n.election.check_interval_ms)->default_value(n.election.check_interval_ms), "election: period of the coordinator/member checks")
    ("mutex", po::value(&n.mutex_algorithm)->default_value(n.mutex_algorithm), "cluster-wide locks (task locks, dice lock): central (through the elected coordinator), voting (majority; the one safe under partitions), ricart-agrawala or token-ring")
    ("mutex-retry-ms", po::value(&n.mutex.retry_ms)->default_value(n.mutex.retry_ms), "locks: an unanswered request, release or census is sent again after this")
    ("mutex-lease-ms", po::value(&n.mutex.lease_ms)->default_value(n.mutex.lease_ms), "voting: a holder no longer confirmed by a majority for this long lets go (its task is canceled)")
    ("mutex-reclaim-ms", po::value(&n.mutex.reclaim_ms)->default_value(n.mutex.reclaim_ms), "voting: a voter takes its vote back after this long without word from the holder; a starting node abstains this long (> --mutex-lease-ms)")
    ("mutex-voters", po::value(&n.mutex.voters)->default_value(n.mutex.voters), "voting: majority of at least this many voters (set it to the cluster size; 0: the members seen)")
    ("mutex-token-hop-ms", po::value(&n.mutex.token_hop_ms)->default_value(n.mutex.token_hop_ms), "token-ring: an idle token waits this long at each node")
    ("mutex-token-loss-ms", po::value(&n.mutex.token_loss_ms)->default_value(n.mutex.token_loss_ms), "token-ring: unseen this long (plus a round), the token is made again")
    ("lock-idle-ms", po::value(&n.task_lock_idle_ms)->default_value(n.task_lock_idle_ms), "a task lock held here that no ready task asked for within this is given back")
    ("lock-recheck-ms", po::value(&n.queue.lock_recheck_ms)->default_value(n.queue.lock_recheck_ms), "how often ready tasks waiting for their locks are looked at again")
    ("event-sync-ms", po::value(&n.causal.sync_ms)->default_value(n.causal.sync_ms), "causal events: how often a node tells its peers what it delivered (they resend what it lacks); with nothing new to tell, every 8th time only")
    ("event-log-limit", po::value(&n.causal.log_limit)->default_value(n.causal.log_limit), "causal events: delivered events kept for peers that may lack them, at most")
    ("slots", po::value(&slots)->default_value(slots), "tasks this node executes at once (default: the core count)")
    ("prefetch", po::value(&prefetch)->default_value(prefetch), "tasks claimed beyond --slots, each started the moment a slot frees: auto (1, up to 4 while this node's executions take a few ms) or a count (0: a slot claims only once free)")
    ("ack-replicas", po::value(&ack_replicas)->default_value(ack_replicas), "replicas that acknowledge an enqueuer's ENQUEUEs by unicast at once, so a submit is answered without waiting for a heartbeat (0: heartbeats only)")
    ("max-attempts", po::value(&max_attempts)->default_value(max_attempts), "executions of a task that may fail before it ends FAILED (a task's own max_attempts or --retries wins)")
    ("retry-backoff-ms", po::value(&retry_backoff)->default_value(retry_backoff), "wait before a failed task's 2nd attempt, doubled for each later one, half of it drawn at random (a task's own backoff wins; 0: ready again at once)")
    ("retry-backoff-max-ms", po::value(&retry_backoff_max)->default_value(retry_backoff_max), "the longest wait between two attempts of a task")
    ("keep-finished-ms", po::value(&keep_finished)->default_value(keep_finished), "how long a task that ended stays in the replica, its journal and snapshots before every node forgets it (a task's own keep_for_ms wins; set it alike on every node: the shortest forgets for all)")
    ("claim-window-ms", po::value(&claim_window)->default_value(claim_window), "how long a staggered claim (a task the common matching gave another node; every claim with --claim-stagger-ms 0) waits for competing claims before executing")
    ("matched-claim-window-ms", po::value(&matched_window)->default_value(matched_window), "the same for a claim of a task the common matching gave this node (0: it starts at once, and a better claim heard later stops it)")
    ("submit-claim-ms", po::value(&submit_claim)->default_value(submit_claim), "a task submitted to this node while it has a free slot is its own: claimed and started at once, with no window, if offered within this long of its submit (-1: never; its claim is dated at the submit; a rival hears the task later, so its claim is dated no earlier and loses)")
    ("claim-stagger-ms", po::value(&claim_stagger)->default_value(claim_stagger), "a free slot with no task of its own in the common matching waits this, plus its rank times this, before it claims (0: no matching, all claim at once)")
    ("battery", po::value(&battery)->default_value(battery), "this node's battery level 0..100 for the claim ranking (a higher level claims first); auto: read from /sys/class/power_supply (again every --battery-refresh-ms), 100 when there is no battery")
    ("battery-refresh-ms", po::value(&battery_refresh)->default_value(battery_refresh), "--battery auto on a machine with a battery: how often the level is read again")
    ("device-class", po::value(&device_class)->default_value(device_class), "this node's device class for the claim ranking (a lower class claims first, after battery and dequeue time)")
    ("unknown-strategy", po::value(&unknown_strategy)->default_value(unknown_strategy), "a message naming a task this node does not know: always_want asks about it at once (DO_YOU_KNOW_THIS_TASK: the nodes that named it, alone, --unknown-direct-tries times, then the cluster twice), never_want leaves it to anti-entropy")
    ("unknown-direct-tries", po::value(&unknown_direct_tries)->default_value(unknown_direct_tries), "always_want: questions about an unknown task sent to the nodes that named it, alone, 200 ms apart, before the cluster is asked: auto (2, and one more per doubling of the live cluster beyond 64 nodes) or a count 0..16 at every size (more send fewer datagrams on a large lossy cluster, but repair a replica that missed a task more slowly)")
    ("running-interval-ms", po::value(&running_interval)->default_value(running_interval), "RUNNING heartbeat interval of an execution")
    ("running-timeout-ms", po::value(&running_timeout)->default_value(running_timeout), "no RUNNING heartbeat for this long: the executor is asked about the task, twice 200 ms apart, and with no end heard 200 ms after the second question the task is re-queued")
    ("finished-hold-ms", po::value(&finished_hold)->default_value(finished_hold), "the DONE or FAILED report of an execution may wait this long to share a datagram with the next broadcast (0: at once)")
    ("shell-allow", po::value(&shell_allow)->composing(), "enable the `shell` kind for this program (argv[0], exact; repeatable, or a comma list in the INI file)")
    ("shell-timeout-ms", po::value(&shell_timeout)->default_value(shell_timeout), "a shell task running longer is killed with its process group")
    ("shell-max-output-bytes", po::value(&shell_output)->default_value(shell_output), "output of a shell task kept in its result")
    ("worker-lease-ms", po::value(&n.workers.lease_ms)->default_value(n.workers.lease_ms), "a worker (a process serving task kinds through POST /workers) that asks for nothing this long is gone: the jobs it held run again, elsewhere if no other worker here serves their kind")
    ("workers-max", po::value(&n.workers.max_workers)->default_value(n.workers.max_workers), "workers joined to this node at once, at most")
    ("tester", po::bool_switch(&tc.enabled), "run `dice test` modules (project test code) on this node, in a sandbox: its own process group, a fresh workspace, as user nobody when the node is root")
    ("tester-work-dir", po::value(&tc.work_dir), "where workspaces are unpacked (default: $TMPDIR/dice-work-ID)")
    ("tester-python", po::value(&tc.python)->default_value(tc.python), "the interpreter that runs pytest (looked up in /usr/local/bin:/usr/bin:/bin)")
    ("tester-blob-cache-mb", po::value(&tester_blob_cache_mb)->default_value(tester_blob_cache_mb), "project blobs kept on this node; the least recently used are evicted beyond it")
    ("tester-max-upload-mb", po::value(&tester_max_upload_mb)->default_value(tester_max_upload_mb), "largest project archive POST /evaluation takes (413 beyond)")
    ("tester-max-unpacked-mb", po::value(&tester_max_unpacked_mb)->default_value(tester_max_unpacked_mb), "largest a project may unpack to")
    ("tester-max-timeout-s", po::value(&tester_max_timeout_s)->default_value(tester_max_timeout_s), "longest time limit an evaluation may give a module")
    ("tester-output-bytes", po::value(&tester_output_bytes)->default_value(tester_output_bytes), "output kept of each failing test (its tail)")
    ("tester-hello-ms", po::value(&tester_hello_ms)->default_value(tester_hello_ms), "how often this node tells its peers where it serves project blobs")
    ("tester-blob-replicas", po::value(&tester_blob_replicas)->default_value(tester_blob_replicas), "peers a new project blob is copied to before its evaluation is accepted")
    ("scheduler", po::value(&out.scheduler_policy)->default_value(out.scheduler_policy), "CAF scheduler policy: sharing (idle threads sleep) or stealing (idle threads poll)")
    ("scheduler-threads", po::value(&scheduler_threads)->default_value(scheduler_threads), "CAF worker threads for the node's actors (executions run on threads of their own)")
    ("log-level", po::value(&out.log_level)->default_value("info"), "trace, debug, info, warn, error or off");
  // clang-format on
  std::ostringstream usage;
  usage << desc;
  out.usage = usage.str();
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    if (vm.count("config")) {
      auto path = vm["config"].as<std::string>();
      std::ifstream in(path);
      if (!in)
        throw std::runtime_error("--config: cannot read '" + path + "'");
      try {
        po::store(po::parse_config_file(in, desc), vm);
      } catch (const po::error& e) {
        throw std::runtime_error("--config '" + path + "': " + e.what());
      }
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::runtime_error(e.what());
  }
  if (vm.count("help") || vm.count("version")) {
    out.help = vm.count("help") > 0;
    out.version = !out.help;
    return out;
  }
  n.listen = endpoint_option("listen", listen);
  if (!advertise.empty())
    n.advertise = endpoint_option("advertise", advertise);
  for (auto& p : peers)
    n.peers.push_back(endpoint_option("peer", p));
  if (!multicast.empty())
    n.multicast = endpoint_option("multicast", multicast);
  if (http == "off")
    n.http.reset();
  else
    n.http = endpoint_option("http", http);
  if (!key_file.empty())
    n.cluster_key = cluster_key_from(key_file);
  if (!http_token_file.empty())
    n.api.token = read_http_token_file(http_token_file);
  if (tc.enabled && ::geteuid() == 0) {
    if (!key_file.empty())
      refuse_readable_secret("--cluster-key-file", key_file);
    if (!http_token_file.empty())
      refuse_readable_secret("--http-token-file", http_token_file);
    if (!n.api.tls_key_file.empty())
      refuse_readable_secret("--http-tls-key-file", n.api.tls_key_file);
  }
  n.api.threads = ranged("http-threads", http_threads, 1, 1024);
  n.api.max_connections = ranged("http-max-connections", http_max_connections,
                                 1, 1'000'000);
  n.api.request_timeout_ms = ranged("http-request-timeout-ms", http_request_timeout,
                                    1, 3'600'000);
  n.api.idle_timeout_ms = ranged("http-idle-timeout-ms", http_idle_timeout, 1,
                                 3'600'000);
  n.api.submit_accept_ms = ranged("http-submit-accept-ms", http_submit_accept, 1,
                                  3'600'000);
  n.api.submit_replicated_ms = ranged("http-submit-replicated-ms",
                                      http_submit_replicated, 0, 3'600'000);
  q.submit_window = ranged("submit-window", submit_window, 1, 100'000'000);
  q.submit_in_flight = ranged("submit-in-flight", submit_in_flight, 1, 100'000'000);
  n.api.listen_backlog = static_cast<int>(ranged("http-listen-backlog", http_backlog,
                                                 1, 65'535));
  if (capacity < 0 || capacity > 0xffffffffLL)
    throw std::runtime_error("--capacity " + std::to_string(capacity)
                             + ": must be from 0 to 4294967295");
  n.election.capacity = static_cast<std::uint32_t>(capacity);
  if (n.id.empty())
    n.id = default_id(n.listen);
  if (data_dir == "auto")
    n.data_dir = default_data_dir(n.cluster_id, n.id);
  else if (data_dir != "none")
    n.data_dir = data_dir;
  if (!parse_journal_sync(sync, n.sync))
    throw std::runtime_error("--sync: '" + sync
                             + "' is not one of always, batch, none");
  n.sync_batch_ms = ranged("sync-batch-ms", sync_batch, 1, 10'000);
  n.incarnation_probe_ms = ranged("incarnation-probe-ms", incarnation_probe, 0,
                                  10'000);
  constexpr long long day_ms = 86'400'000;
  q.slots = ranged("slots", slots, 1, max_slots);
  q.max_attempts = ranged("max-attempts", max_attempts, 1, 100);
  q.retry_backoff_max_ms = ranged("retry-backoff-max-ms", retry_backoff_max, 0,
                                  day_ms);
  q.retry_backoff_ms = ranged("retry-backoff-ms", retry_backoff, 0,
                              q.retry_backoff_max_ms);
  q.keep_finished_ms = ranged("keep-finished-ms", keep_finished, 0,
                              365 * day_ms);
  q.prefetch_auto = prefetch == "auto";
  if (!q.prefetch_auto)
    q.prefetch = ranged(
      "prefetch",
      auto_or_number("prefetch", prefetch,
                     "a count from 0 to " + std::to_string(max_slots)),
      0, max_slots);
  q.ack_replicas = ranged("ack-replicas", ack_replicas, 0, 64);
  q.claim_window_ms = ranged("claim-window-ms", claim_window, 0, 60'000);
  q.matched_claim_window_ms = ranged("matched-claim-window-ms", matched_window, 0, 60'000);
  q.submit_claim_ms = ranged("submit-claim-ms", submit_claim, -1, 60'000);
  q.claim_stagger_ms = ranged("claim-stagger-ms", claim_stagger, 0, 60'000);
  q.battery_refresh_ms = ranged("battery-refresh-ms", battery_refresh, 1, day_ms);
  if (battery == "auto") {
    auto level = read_battery_level();
    q.battery = level.value_or(100);
    if (level) // a machine with a battery: keep the level current
      q.battery_source = [] { return read_battery_level(); };
  } else {
    auto level = auto_or_number("battery", battery, "a level from 0 to 100");
    q.battery = static_cast<std::uint32_t>(ranged("battery", level, 0, 100));
  }
  q.device_class = static_cast<std::uint32_t>(
    ranged("device-class", device_class, 0, 0xffffffffLL));
  if (unknown_strategy == "always_want")
    q.resolver.strategy = resolve_strategy::always_want;
  else if (unknown_strategy == "never_want")
    q.resolver.strategy = resolve_strategy::never_want;
  else
    throw std::runtime_error("--unknown-strategy: '" + unknown_strategy
                             + "' is not one of always_want, never_want");
  // The broadcast questions after the direct ones stay as many as the
  // resolver's defaults have.
  auto broadcasts = q.resolver.resolve_tries - q.resolver.witness_tries;
  if (unknown_direct_tries != "auto") {
    auto tries = auto_or_number("unknown-direct-tries", unknown_direct_tries,
                                "a count from 0 to 16");
    q.resolver.witness_tries =
      static_cast<std::uint32_t>(ranged("unknown-direct-tries", tries, 0, 16));
    q.resolver.scale_witness_tries = false;
  }
  q.resolver.resolve_tries = q.resolver.witness_tries + broadcasts;
  q.running_interval_ms = ranged("running-interval-ms", running_interval, 1, 60'000);
  q.running_timeout_ms = ranged("running-timeout-ms", running_timeout, 1, day_ms);
  q.finished_hold_ms = ranged("finished-hold-ms", finished_hold, 0, 60'000);
  if (q.running_timeout_ms <= q.running_interval_ms)
    throw std::runtime_error("--running-timeout-ms (" + std::to_string(running_timeout)
                             + ") must be longer than --running-interval-ms ("
                             + std::to_string(running_interval) + ")");
  n.timing.gossip_peers_per_heartbeat = ranged("gossip-peers", gossip_peers, 1, 256);
  try {
    n.timing.super_peers = parse_super_peers(super_peers);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  n.limits.bundle_bytes = ranged("bundle-bytes", bundle_bytes, 0, 65'535);
  q.op_log_limit = static_cast<std::size_t>(
    ranged("op-log-limit", op_log_limit, 1, 100'000'000));
  if (out.scheduler_policy != "sharing" && out.scheduler_policy != "stealing")
    throw std::runtime_error("--scheduler: '" + out.scheduler_policy
                             + "' is not one of sharing, stealing");
  out.scheduler_threads = ranged("scheduler-threads", scheduler_threads, 1, 64);
  n.shell.allow = allow_list(shell_allow);
  n.shell.timeout_ms = ranged("shell-timeout-ms", shell_timeout, 1, day_ms);
  n.shell.max_output_bytes = ranged("shell-max-output-bytes", shell_output, 1,
                                    defaults::max_result_bytes);
  tc.blob_cache_bytes = static_cast<std::uint64_t>(
    ranged("tester-blob-cache-mb", tester_blob_cache_mb, 1, 1 << 24)) << 20;
  tc.max_upload_bytes = static_cast<std::uint64_t>(
    ranged("tester-max-upload-mb", tester_max_upload_mb, 1, 1 << 20)) << 20;
  tc.max_unpacked_bytes = static_cast<std::uint64_t>(
    ranged("tester-max-unpacked-mb", tester_max_unpacked_mb, 1, 1 << 24)) << 20;
  tc.max_timeout_ms = ranged("tester-max-timeout-s", tester_max_timeout_s, 1, 86'400) * 1000;
  tc.output_bytes = ranged("tester-output-bytes", tester_output_bytes, 64, 8192);
  tc.hello_ms = ranged("tester-hello-ms", tester_hello_ms, 10, 60'000);
  tc.blob_replicas = ranged("tester-blob-replicas", tester_blob_replicas, 0, 64);
  static const char* levels[] = {"trace", "debug", "info", "warn", "error", "off"};
  if (std::find(std::begin(levels), std::end(levels), out.log_level)
      == std::end(levels))
    throw std::runtime_error("--log-level: '" + out.log_level
                             + "' is not one of trace, debug, info, warn, "
                               "error, off");
  if (auto problem = n.problem(); !problem.empty())
    throw std::runtime_error(problem);
  return out;
}

std::string join_hint(const node_config& n) {
  if (!n.peers.empty() || n.multicast || !is_loopback(n.listen))
    return "";
  auto port = std::to_string(n.listen.port);
  auto next = std::to_string(n.listen.port + 1);
  return "alone on loopback: another node on this machine joins with "
         "'dice-node --listen 127.0.0.1:" + next + " --http 127.0.0.1:"
         + (n.http ? std::to_string(n.http->port + 1) : std::string("8401"))
         + " --peer " + n.listen.to_string()
         + "'; to take members on other machines, start each node with "
           "--listen 0.0.0.0:" + port
         + " --cluster-key-file FILE (the same key everywhere) and --peer "
           "THIS_HOST:" + port + " (docs/running.md)";
}

} // namespace dice
