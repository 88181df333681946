#pragma once
// Multi-process test harness: real dice-node processes on 127.0.0.1.
//
// Every child is started by fork/execv, known by its pid only, and reaped by
// its owner: a node_process that goes out of scope (a passing test, a failed
// REQUIRE, an exception) SIGKILLs and waits for a child still running, so no
// test leaves processes behind. Children also get PR_SET_PDEATHSIG, so even a
// test binary killed outright takes its nodes with it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

namespace dice::test {

using millis = std::chrono::milliseconds;

/// A fresh directory under $TMPDIR (or /tmp), removed on destruction unless
/// DICE_KEEP_TEST_LOGS is set in the environment.
class temp_dir {
public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::string& path() const { return path_; }
  /// path()/name
  std::string file(const std::string& name) const;
  /// Writes `content` to path()/name and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

private:
  std::string path_;
};

/// A port on 127.0.0.1 that was free a moment ago (bound with port 0, then
/// released). `udp` picks the socket type the port will be used with.
std::uint16_t free_port(bool udp);

/// "127.0.0.1:PORT"
std::string loopback(std::uint16_t port);

/// One child process with stdout and stderr going to a log file.
class process {
public:
  /// Starts `program` with `args` (not including argv[0]); throws
  /// std::runtime_error if fork fails. A failing execv shows up as exit 127.
  process(const std::string& program, const std::vector<std::string>& args,
          const std::string& log_path);
  ~process();
  process(const process&) = delete;
  process& operator=(const process&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  /// Everything the child wrote so far.
  std::string log() const;

  /// True until the child has exited (reaps it when it has).
  bool running();
  /// Waits up to `timeout` for the child to exit by itself. Returns its exit
  /// code (128 + signal number if a signal ended it), or nullopt if it is
  /// still running at the deadline.
  std::optional<int> wait_exit(millis timeout);
  /// SIGTERM, then waits up to `grace`; SIGKILL if it is still running.
  /// Returns the exit code as wait_exit does.
  int stop(millis grace = millis(5000));
  /// SIGKILL and reap: a crash, as far as the cluster can tell.
  void kill_now();

private:
  void reap(int status);

  pid_t pid_ = -1;
  std::string log_path_;
  std::optional<int> exit_code_;
};

/// What one dice-node is started with.
struct node_spec {
  std::string id;
  std::uint16_t udp_port = 0;
  std::uint16_t http_port = 0;
  std::vector<std::string> peers;     // HOST:PORT seed peers
  std::string cluster_key_file;       // empty: no key
  std::string data_dir;               // empty: none (memory only)
  /// Both set: the API speaks HTTPS only, and the harness trusts the
  /// certificate itself (self-signed, naming 127.0.0.1).
  std::string tls_cert_file, tls_key_file;
  std::vector<std::string> extra_args;

  std::string udp_addr() const { return loopback(udp_port); }
  /// The full dice-node argument list.
  std::vector<std::string> args() const;
};

class node_process;

/// "http://127.0.0.1:PORT" of the node's HTTP API (https:// with TLS), for
/// the dice CLI's --node.
std::string url_of(const node_process& n);

/// Result of an HTTP GET: status 0 means no connection or no answer.
struct http_reply {
  int status = 0;
  std::string body;
  /// The body parsed as JSON, or nullopt if it is not JSON.
  std::optional<nlohmann::json> json() const;
};

/// GET http://127.0.0.1:port/path with a short connect/read timeout.
http_reply http_get(std::uint16_t port, const std::string& path,
                    millis timeout = millis(1000));
/// GET BASE/path (BASE: http://HOST:PORT or https://HOST:PORT, whose
/// certificate must then chain to `ca_file`).
http_reply http_get(const std::string& base, const std::string& path,
                    const std::string& ca_file, millis timeout = millis(1000));

/// POST http://127.0.0.1:port/path with `body` as JSON.
http_reply http_post(std::uint16_t port, const std::string& path,
                     const nlohmann::json& body, millis timeout = millis(10000));

/// POST /workflows `w` at `n`: the answer's body. Throws
/// std::runtime_error with the status and body unless it is 201.
nlohmann::json submit_workflow(const node_process& n, const nlohmann::json& w);

/// The JSON body of a 200 reply, or nullopt for anything else.
std::optional<nlohmann::json> get_json(std::uint16_t port,
                                       const std::string& path,
                                       millis timeout = millis(1000));

/// The last line of a program's output parsed as JSON (discarded if it is
/// not): the summary `dice --json` prints.
nlohmann::json last_json_line(const std::string& output);

/// Polls `predicate` every `poll` until it returns true or `timeout` has
/// passed; returns the predicate's last value. Always bounded.
bool wait_until(const std::function<bool()>& predicate, millis timeout,
                millis poll = millis(50));

/// A running dice-node: its spec and its process.
class node_process {
public:
  node_process(const std::string& binary, node_spec spec,
               const std::string& log_path);

  const node_spec& spec() const { return spec_; }
  const std::string& id() const { return spec_.id; }
  process& proc() { return *proc_; }

  bool healthy() const;
  /// GET `path` of its API, over HTTPS when it speaks TLS.
  http_reply get(const std::string& path) const;
  /// The JSON body of a 200 answer to get(`path`), or nullopt.
  std::optional<nlohmann::json> get_json(const std::string& path) const;
  /// /nodes, or nullopt if the node does not answer.
  std::optional<nlohmann::json> nodes() const;
  /// /stats, or nullopt if the node does not answer.
  std::optional<nlohmann::json> stats() const;
  /// The state ("alive", "suspect", "dead") this node reports for `peer_id`,
  /// or "" if it does not list it (or does not answer).
  std::string state_of(const std::string& peer_id) const;
  /// Number of entries (self included) this node reports alive.
  std::size_t alive_count() const;

private:
  node_spec spec_;
  std::unique_ptr<process> proc_;
};

/// A set of dice-nodes sharing one temp dir for logs and key files.
class cluster {
public:
  /// `binary` defaults to the dice-node this test binary was built with.
  explicit cluster(std::string binary = DICE_NODE_BIN);

  const temp_dir& dir() const { return dir_; }
  const std::string& binary() const { return binary_; }

  /// A spec with fresh loopback ports and the given id.
  node_spec make_spec(const std::string& id) const;
  /// Starts a node and waits (up to `ready_timeout`) for /health; throws
  /// std::runtime_error with the node's log if it never becomes healthy.
  node_process& start(node_spec spec, millis ready_timeout = millis(5000));
  /// Starts a node for each of `specs` (start) and waits up to `timeout`
  /// until each of them reports all of them alive: a formed cluster.
  /// Throws std::runtime_error with the nodes' logs if it does not form.
  /// The nodes, in the order of `specs`.
  std::vector<node_process*> start_formed(std::vector<node_spec> specs,
                                          millis timeout = millis(8000));

  std::vector<std::unique_ptr<node_process>>& nodes() { return nodes_; }
  node_process& operator[](std::size_t i) { return *nodes_.at(i); }

  /// Logs of every node, for failure messages.
  std::string logs() const;

private:
  temp_dir dir_;
  std::string binary_;
  std::vector<std::unique_ptr<node_process>> nodes_;
};

/// What a run of the dice CLI ended with: its exit code (-1 if killed at
/// the timeout) and its output.
struct cli_result {
  int code = -1;
  std::string output;
};
/// Runs `dice --node URL-OF-n [--ca-file ITS-CERT] args...` to its end
/// (at most `timeout`), its output in the cluster's dir under `log`.
cli_result dice_cli(cluster& c, node_process& n, std::vector<std::string> args,
                    const std::string& log, millis timeout = millis(30000));

/// A self-signed certificate for 127.0.0.1 (PEM files in `dir`), made by
/// the openssl program: for node_spec's tls_cert_file and tls_key_file.
struct certificate {
  std::string cert, key;
};
certificate make_certificate(const temp_dir& dir, const std::string& name);

/// Specs for `ids` (make_spec), each after the first seeded with the
/// first's address: a cluster that forms through one node.
std::vector<node_spec> seeded_specs(const cluster& c, const std::vector<std::string>& ids);

/// Runs `dice-node args...` to completion (killing it after `timeout`) and
/// returns its exit code (nullopt if it had to be killed) and its output.
struct run_result {
  std::optional<int> exit_code;
  std::string output;
  millis elapsed{0};
};
run_result run_node_to_exit(const std::vector<std::string>& args,
                            const temp_dir& dir, const std::string& log_name,
                            millis timeout);

} // namespace dice::test
