// bench_failure_detection: how long a DiCE cluster takes to notice a crash.
//
// Starts N dice-node processes on 127.0.0.1, waits until every node sees every
// node alive, then K times: SIGKILLs one node, polls every survivor's /nodes
// every 10 ms until each reports the victim dead, restarts the victim and
// waits for the cluster to converge again. Prints a table and the median,
// min and max time from SIGKILL until EVERY survivor reports the victim dead;
// writes the rows as CSV with --csv.
//
// The program owns its children by pid: they are SIGKILLed and reaped on
// every way out (normal end, error, exception, SIGINT/SIGTERM), and each one
// also dies with the benchmark (PR_SET_PDEATHSIG) if it is killed outright.
#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <netinet/in.h>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace {

using clock_type = std::chrono::steady_clock;
using millis = std::chrono::milliseconds;

// ---- children, by pid ---------------------------------------------------------

// A fixed table the signal handler can read without locks or allocation.
constexpr int max_children = 64;
std::atomic<pid_t> children[max_children];

void register_child(pid_t pid) {
  for (auto& slot : children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid))
      return;
  }
  ::kill(pid, SIGKILL); // cannot track it: do not let it outlive us
  ::waitpid(pid, nullptr, 0);
  throw std::runtime_error("too many child processes");
}

/// Takes `pid` out of the table; false if it was not there (already reaped
/// by kill_all_children, so the pid must not be signalled again).
bool forget_child(pid_t pid) {
  for (auto& slot : children) {
    pid_t p = pid;
    if (slot.compare_exchange_strong(p, 0))
      return true;
  }
  return false;
}

/// Kills and reaps every registered child. Async-signal-safe.
void kill_all_children() {
  for (auto& slot : children) {
    pid_t pid = slot.exchange(0);
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
}

extern "C" void on_stop_signal(int sig) {
  kill_all_children();
  ::_exit(128 + sig);
}

/// One dice-node child; SIGKILLed and reaped when destroyed.
class child {
public:
  child(const std::string& binary, const std::vector<std::string>& args,
        const std::string& log_path) {
    std::vector<std::string> storage{binary};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    int log_fd = ::open(log_path.c_str(),
                        O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
      throw std::runtime_error("cannot open " + log_path + ": "
                               + std::strerror(errno));
    pid_t parent = ::getpid();
    // Block the stop signals across fork so the handler never runs before
    // the pid is registered.
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &stop, &old);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent)
        ::_exit(127);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    auto fork_errno = errno;
    ::close(log_fd);
    if (pid_ > 0) {
      try {
        register_child(pid_);
      } catch (...) {
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        throw;
      }
    }
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    if (pid_ < 0)
      throw std::runtime_error(std::string("fork: ") + std::strerror(fork_errno));
  }
  ~child() { kill_now(); }
  child(const child&) = delete;
  child& operator=(const child&) = delete;

  pid_t pid() const { return pid_; }
  bool running() {
    if (pid_ <= 0)
      return false;
    if (::waitpid(pid_, nullptr, WNOHANG) == 0)
      return true;
    forget_child(pid_);
    pid_ = -1;
    return false;
  }
  /// SIGKILL by pid and reap, unless it was reaped already.
  void kill_now() {
    if (pid_ <= 0)
      return;
    if (forget_child(pid_)) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

private:
  pid_t pid_ = -1;
};

// ---- helpers ------------------------------------------------------------------

std::uint16_t free_port(bool udp) {
  int fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0
      || ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("cannot find a free loopback port");
  }
  ::close(fd);
  return ntohs(sa.sin_port);
}

std::string loopback(std::uint16_t port) {
  return "127.0.0.1:" + std::to_string(port);
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0)
    .count();
}

/// GET /nodes as {id -> state}; empty if the node does not answer.
std::vector<std::pair<std::string, std::string>> peer_states(std::uint16_t port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(0, 500'000);
  cli.set_read_timeout(0, 500'000);
  std::vector<std::pair<std::string, std::string>> out;
  auto res = cli.Get("/nodes");
  if (!res || res->status != 200)
    return out;
  auto body = nlohmann::json::parse(res->body, nullptr, false);
  if (body.is_discarded() || !body.contains("nodes"))
    return out;
  for (auto& row : body["nodes"])
    out.emplace_back(row.value("id", ""), row.value("state", ""));
  return out;
}

std::string state_of(std::uint16_t port, const std::string& id) {
  for (auto& [peer, state] : peer_states(port))
    if (peer == id)
      return state;
  return "";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// ---- options ------------------------------------------------------------------

struct options {
  int nodes = 4;
  int kills = 7;
  std::string csv;
  std::string binary = DICE_NODE_BIN;
  std::string log_dir;
  int round_timeout_ms = 10'000;
  std::vector<std::string> node_args; // --heartbeat-ms and friends
};

const char* usage =
  "bench_failure_detection: time from SIGKILL of one dice-node until every\n"
  "other node reports it dead.\n"
  "Usage: bench_failure_detection [options]\n"
  "  --nodes N             cluster size (default 4, at least 2)\n"
  "  --kills K             rounds: kill, measure, restart (default 7)\n"
  "  --csv PATH            write one row per round as CSV\n"
  "  --dice-node PATH      the dice-node binary (default: the one built here)\n"
  "  --log-dir DIR         node logs (default: a new directory under /tmp)\n"
  "  --round-timeout-ms T  give up on a round after T ms (default 10000)\n"
  "  --heartbeat-ms, --suspect-after-ms, --dead-after-ms MS\n"
  "                        passed on to every node (default: dice-node's)\n";

options parse(int argc, char** argv) {
  options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc)
      throw std::runtime_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto number = [&](int& i) {
    std::string name = argv[i];
    auto text = value(i);
    try {
      std::size_t used = 0;
      auto n = std::stoi(text, &used);
      if (used == text.size() && n > 0)
        return n;
    } catch (const std::exception&) {
    }
    throw std::runtime_error(name + ": '" + text + "' is not a positive number");
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      std::exit(0);
    } else if (a == "--nodes") {
      o.nodes = number(i);
    } else if (a == "--kills") {
      o.kills = number(i);
    } else if (a == "--csv") {
      o.csv = value(i);
    } else if (a == "--dice-node") {
      o.binary = value(i);
    } else if (a == "--log-dir") {
      o.log_dir = value(i);
    } else if (a == "--round-timeout-ms") {
      o.round_timeout_ms = number(i);
    } else if (a == "--heartbeat-ms" || a == "--suspect-after-ms"
               || a == "--dead-after-ms") {
      o.node_args.push_back(a);
      o.node_args.push_back(std::to_string(number(i)));
    } else {
      throw std::runtime_error("unknown option '" + a + "' (see --help)");
    }
  }
  if (o.nodes < 2)
    throw std::runtime_error("--nodes must be at least 2");
  if (o.nodes > max_children)
    throw std::runtime_error("--nodes must be at most "
                             + std::to_string(max_children));
  return o;
}

// ---- the benchmark ------------------------------------------------------------

struct node {
  std::string id;
  std::uint16_t udp = 0;
  std::uint16_t http = 0;
  std::vector<std::string> args;
  std::unique_ptr<child> proc;
};

struct round_result {
  int round = 0;
  std::string victim;
  double all_suspect_ms = -1; // every survivor reports suspect or dead
  double first_dead_ms = -1;  // the first survivor reports dead
  double all_dead_ms = -1;    // every survivor reports dead
  double rejoin_ms = -1;      // restart until every node sees all alive
};

class bench {
public:
  explicit bench(options o) : opts_(std::move(o)) {
    if (opts_.log_dir.empty()) {
      char tmpl[] = "/tmp/dice-bench-fd-XXXXXX";
      if (!::mkdtemp(tmpl))
        throw std::runtime_error("mkdtemp failed");
      opts_.log_dir = tmpl;
    }
  }

  int run() {
    start_all();
    auto t0 = clock_type::now();
    if (!wait_converged(millis(opts_.round_timeout_ms)))
      throw std::runtime_error("the cluster did not converge; logs in "
                               + opts_.log_dir);
    std::cout << "cluster of " << opts_.nodes << " converged in "
              << std::fixed << std::setprecision(0) << ms_since(t0)
              << " ms; node logs in " << opts_.log_dir << "\n\n";
    print_header();
    std::vector<round_result> rows;
    for (int r = 0; r < opts_.kills; ++r) {
      rows.push_back(kill_round(r));
      print_row(rows.back());
      if (rows.back().all_dead_ms < 0)
        break;
    }
    write_csv(rows);
    return summarize(rows);
  }

private:
  std::string node_id(int i) const { return "bench-" + std::to_string(i + 1); }

  void start_all() {
    nodes_.resize(opts_.nodes);
    for (int i = 0; i < opts_.nodes; ++i) {
      auto& n = nodes_[i];
      n.id = node_id(i);
      n.udp = free_port(true);
      n.http = free_port(false);
      n.args = {"--id",   n.id, "--listen", loopback(n.udp),
                "--http", loopback(n.http), "--log-level", "warn"};
      // One seed is enough: everyone else is learned by gossip. Node 1 is
      // never killed, so it is always there to be the seed.
      if (i > 0)
        n.args.insert(n.args.end(), {"--peer", loopback(nodes_[0].udp)});
      // Memory only: a killed node comes back empty, as it did before
      // the journal, so runs compare.
      n.args.insert(n.args.end(), {"--data-dir", "none"});
      n.args.insert(n.args.end(), opts_.node_args.begin(),
                    opts_.node_args.end());
      start(n);
    }
  }

  void start(node& n) {
    n.proc = std::make_unique<child>(opts_.binary, n.args,
                                     opts_.log_dir + "/" + n.id + ".log");
  }

  bool converged() {
    for (auto& n : nodes_) {
      auto states = peer_states(n.http);
      auto alive = std::count_if(states.begin(), states.end(), [](auto& s) {
        return s.second == "alive";
      });
      if (alive != opts_.nodes)
        return false;
    }
    return true;
  }

  bool wait_converged(millis timeout) {
    auto deadline = clock_type::now() + timeout;
    while (clock_type::now() < deadline) {
      for (auto& n : nodes_)
        if (!n.proc->running())
          throw std::runtime_error(n.id + " exited; see " + opts_.log_dir
                                   + "/" + n.id + ".log");
      if (converged())
        return true;
      std::this_thread::sleep_for(millis(10));
    }
    return false;
  }

  round_result kill_round(int r) {
    round_result res;
    res.round = r + 1;
    auto& victim = nodes_[1 + r % (opts_.nodes - 1)];
    res.victim = victim.id;
    std::vector<node*> survivors;
    for (auto& n : nodes_)
      if (&n != &victim)
        survivors.push_back(&n);
    std::vector<bool> suspect(survivors.size(), false);
    std::vector<bool> dead(survivors.size(), false);

    auto t0 = clock_type::now();
    victim.proc->kill_now();
    auto deadline = t0 + millis(opts_.round_timeout_ms);
    while (clock_type::now() < deadline) {
      auto poll_start = clock_type::now();
      for (std::size_t i = 0; i < survivors.size(); ++i) {
        if (dead[i])
          continue;
        auto state = state_of(survivors[i]->http, victim.id);
        if (state == "suspect" || state == "dead")
          suspect[i] = true;
        if (state == "dead") {
          dead[i] = true;
          if (res.first_dead_ms < 0)
            res.first_dead_ms = ms_since(t0);
        }
      }
      if (res.all_suspect_ms < 0
          && std::all_of(suspect.begin(), suspect.end(), [](bool b) { return b; }))
        res.all_suspect_ms = ms_since(t0);
      if (std::all_of(dead.begin(), dead.end(), [](bool b) { return b; })) {
        res.all_dead_ms = ms_since(t0);
        break;
      }
      std::this_thread::sleep_until(poll_start + millis(10));
    }
    if (res.all_dead_ms < 0) {
      std::cerr << "round " << res.round << ": " << victim.id
                << " not reported dead by every node within "
                << opts_.round_timeout_ms << " ms\n";
      return res;
    }
    auto t1 = clock_type::now();
    start(victim);
    if (!wait_converged(millis(opts_.round_timeout_ms)))
      throw std::runtime_error(victim.id + " did not rejoin; logs in "
                               + opts_.log_dir);
    res.rejoin_ms = ms_since(t1);
    return res;
  }

  static std::string cell(double v) {
    if (v < 0)
      return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << v;
    return s.str();
  }

  void print_header() const {
    std::cout << std::left << std::setw(7) << "round" << std::setw(10)
              << "victim" << std::right << std::setw(18) << "all suspect ms"
              << std::setw(16) << "first dead ms" << std::setw(14)
              << "all dead ms" << std::setw(12) << "rejoin ms" << "\n";
  }

  void print_row(const round_result& r) const {
    std::cout << std::left << std::setw(7) << r.round << std::setw(10)
              << r.victim << std::right << std::setw(18)
              << cell(r.all_suspect_ms) << std::setw(16)
              << cell(r.first_dead_ms) << std::setw(14) << cell(r.all_dead_ms)
              << std::setw(12) << cell(r.rejoin_ms) << std::endl;
  }

  void write_csv(const std::vector<round_result>& rows) const {
    if (opts_.csv.empty())
      return;
    std::ofstream out(opts_.csv, std::ios::trunc);
    out << "round,victim,nodes,all_suspect_ms,first_dead_ms,all_dead_ms,"
           "rejoin_ms\n";
    for (auto& r : rows)
      out << r.round << "," << r.victim << "," << opts_.nodes << ","
          << cell(r.all_suspect_ms) << "," << cell(r.first_dead_ms) << ","
          << cell(r.all_dead_ms) << "," << cell(r.rejoin_ms) << "\n";
    if (!out)
      throw std::runtime_error("cannot write " + opts_.csv);
    std::cout << "\nwrote " << opts_.csv << "\n";
  }

  int summarize(const std::vector<round_result>& rows) const {
    std::vector<double> dead;
    for (auto& r : rows)
      if (r.all_dead_ms >= 0)
        dead.push_back(r.all_dead_ms);
    std::cout << "\nSIGKILL -> dead at every other node (" << dead.size()
              << " of " << opts_.kills << " rounds, " << opts_.nodes
              << " nodes, poll every 10 ms";
    for (std::size_t i = 0; i + 1 < opts_.node_args.size(); i += 2)
      std::cout << ", " << opts_.node_args[i] << " " << opts_.node_args[i + 1];
    std::cout << "):\n";
    if (dead.empty()) {
      std::cout << "  no round completed\n";
      return 1;
    }
    std::cout << "  median " << cell(median(dead)) << " ms, min "
              << cell(*std::min_element(dead.begin(), dead.end()))
              << " ms, max "
              << cell(*std::max_element(dead.begin(), dead.end())) << " ms\n";
    return static_cast<int>(dead.size()) == opts_.kills ? 0 : 1;
  }

  options opts_;
  std::vector<node> nodes_;
};

} // namespace

int main(int argc, char** argv) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);
  std::atexit(kill_all_children);
  try {
    bench b(parse(argc, argv));
    auto rc = b.run();
    kill_all_children();
    return rc;
  } catch (const std::exception& e) {
    kill_all_children();
    std::cerr << "bench_failure_detection: error: " << e.what() << "\n";
    return 2;
  }
}
