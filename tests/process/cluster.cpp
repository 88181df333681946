#include "cluster.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <httplib.h>

namespace fs = std::filesystem;

namespace dice::test {

// ---- temp_dir -----------------------------------------------------------------

temp_dir::temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp")
                        + "/dice-process-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
  path_ = buf.data();
}

temp_dir::~temp_dir() {
  if (std::getenv("DICE_KEEP_TEST_LOGS"))
    return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string temp_dir::file(const std::string& name) const {
  return path_ + "/" + name;
}

std::string temp_dir::write(const std::string& name,
                            const std::string& content) const {
  auto p = file(name);
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out)
    throw std::runtime_error("cannot write " + p);
  return p;
}

// ---- ports --------------------------------------------------------------------

std::uint16_t free_port(bool udp) {
  int fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = 0;
  socklen_t len = sizeof(sa);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0
      || ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    auto err = errno;
    ::close(fd);
    throw std::runtime_error(std::string("bind port 0: ") + std::strerror(err));
  }
  ::close(fd);
  return ntohs(sa.sin_port);
}

std::string loopback(std::uint16_t port) {
  return "127.0.0.1:" + std::to_string(port);
}

std::string url_of(const node_process& n) {
  return (n.spec().tls_cert_file.empty() ? "http://" : "https://")
         + loopback(n.spec().http_port);
}

// ---- process ------------------------------------------------------------------

process::process(const std::string& program,
                 const std::vector<std::string>& args,
                 const std::string& log_path)
  : log_path_(log_path) {
  // Everything the child needs is prepared before fork: between fork and
  // execv only async-signal-safe calls are allowed.
  std::vector<std::string> argv_storage;
  argv_storage.push_back(program);
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int log_fd = ::open(log_path.c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0)
    throw std::runtime_error("cannot open log " + log_path + ": "
                             + std::strerror(errno));
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    auto err = errno;
    ::close(log_fd);
    ::close(null_fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(err));
  }
  if (pid_ == 0) {
    // The child dies with the test binary, however that ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
    if (null_fd >= 0)
      ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log_fd);
  if (null_fd >= 0)
    ::close(null_fd);
}

process::~process() {
  if (pid_ > 0 && !exit_code_)
    kill_now();
}

std::string process::log() const {
  std::ifstream in(log_path_, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void process::reap(int status) {
  if (WIFEXITED(status))
    exit_code_ = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    exit_code_ = 128 + WTERMSIG(status);
  else
    exit_code_ = -1;
}

bool process::running() {
  if (exit_code_)
    return false;
  int status = 0;
  auto r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reap(status);
    return false;
  }
  if (r < 0 && errno == ECHILD) {
    exit_code_ = -1; // not ours any more; nothing left to reap
    return false;
  }
  return true;
}

std::optional<int> process::wait_exit(millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline)
      return std::nullopt;
    std::this_thread::sleep_for(millis(5));
  }
  return exit_code_;
}

int process::stop(millis grace) {
  if (!running())
    return *exit_code_;
  ::kill(pid_, SIGTERM);
  if (auto code = wait_exit(grace))
    return *code;
  kill_now();
  return *exit_code_;
}

void process::kill_now() {
  if (!running())
    return;
  ::kill(pid_, SIGKILL);
  // SIGKILL cannot be caught; the bound is only against a child stuck in
  // the kernel, and then we still must not hang the test run.
  if (!wait_exit(millis(10'000)))
    exit_code_ = -1;
}

// ---- node_spec ----------------------------------------------------------------

std::vector<std::string> node_spec::args() const {
  std::vector<std::string> out = {"--id",     id,
                                  "--listen", udp_addr(),
                                  "--http",   loopback(http_port),
                                  "--log-level", "info"};
  for (auto& p : peers) {
    out.push_back("--peer");
    out.push_back(p);
  }
  out.push_back("--data-dir");
  out.push_back(data_dir.empty() ? "none" : data_dir);
  if (!cluster_key_file.empty()) {
    out.push_back("--cluster-key-file");
    out.push_back(cluster_key_file);
  }
  if (!tls_cert_file.empty())
    out.insert(out.end(), {"--http-tls-cert-file", tls_cert_file,
                           "--http-tls-key-file", tls_key_file});
  out.insert(out.end(), extra_args.begin(), extra_args.end());
  return out;
}

// ---- HTTP ---------------------------------------------------------------------

std::optional<nlohmann::json> http_reply::json() const {
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded())
    return std::nullopt;
  return parsed;
}

http_reply http_get(std::uint16_t port, const std::string& path,
                    millis timeout) {
  return http_get("http://" + loopback(port), path, "", timeout);
}

http_reply http_get(const std::string& base, const std::string& path,
                    const std::string& ca_file, millis timeout) {
  httplib::Client cli(base);
  if (!ca_file.empty())
    cli.set_ca_cert_path(ca_file.c_str());
  auto sec = static_cast<time_t>(timeout.count() / 1000);
  auto usec = static_cast<time_t>((timeout.count() % 1000) * 1000);
  cli.set_connection_timeout(sec, usec);
  cli.set_read_timeout(sec, usec);
  cli.set_write_timeout(sec, usec);
  auto res = cli.Get(path.c_str());
  if (!res)
    return {};
  return {res->status, res->body};
}

std::optional<nlohmann::json> get_json(std::uint16_t port,
                                       const std::string& path,
                                       millis timeout) {
  auto r = http_get(port, path, timeout);
  if (r.status != 200)
    return std::nullopt;
  return r.json();
}

http_reply http_post(std::uint16_t port, const std::string& path,
                     const nlohmann::json& body, millis timeout) {
  httplib::Client cli("127.0.0.1", port);
  auto sec = static_cast<time_t>(timeout.count() / 1000);
  auto usec = static_cast<time_t>((timeout.count() % 1000) * 1000);
  cli.set_read_timeout(sec, usec);
  auto res = cli.Post(path.c_str(), body.dump(), "application/json");
  if (!res)
    return {};
  return {res->status, res->body};
}

nlohmann::json submit_workflow(const node_process& n, const nlohmann::json& w) {
  auto r = http_post(n.spec().http_port, "/workflows", w);
  if (r.status != 201)
    throw std::runtime_error("POST /workflows answered "
                             + (r.status ? std::to_string(r.status) + ": " + r.body
                                         : std::string("nothing")));
  return nlohmann::json::parse(r.body);
}

nlohmann::json last_json_line(const std::string& output) {
  auto trimmed = output.substr(0, output.find_last_not_of('\n') + 1);
  return nlohmann::json::parse(trimmed.substr(trimmed.rfind('\n') + 1), nullptr,
                               false);
}

bool wait_until(const std::function<bool()>& predicate, millis timeout,
                millis poll) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (predicate())
      return true;
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(poll);
  }
}

// ---- node_process -------------------------------------------------------------

node_process::node_process(const std::string& binary, node_spec spec,
                           const std::string& log_path)
  : spec_(std::move(spec)),
    proc_(std::make_unique<process>(binary, spec_.args(), log_path)) {
}

http_reply node_process::get(const std::string& path) const {
  return http_get(url_of(*this), path, spec_.tls_cert_file);
}

std::optional<nlohmann::json> node_process::get_json(const std::string& path) const {
  auto r = get(path);
  if (r.status != 200)
    return std::nullopt;
  return r.json();
}

bool node_process::healthy() const {
  auto h = get_json("/health");
  return h && h->value("ok", false) && h->value("id", "") == spec_.id;
}

std::optional<nlohmann::json> node_process::nodes() const {
  return get_json("/nodes");
}

std::optional<nlohmann::json> node_process::stats() const {
  return get_json("/stats");
}

std::string node_process::state_of(const std::string& peer_id) const {
  auto n = nodes();
  if (!n || !n->contains("nodes"))
    return "";
  for (auto& row : (*n)["nodes"])
    if (row.value("id", "") == peer_id)
      return row.value("state", "");
  return "";
}

std::size_t node_process::alive_count() const {
  auto n = nodes();
  if (!n || !n->contains("nodes"))
    return 0;
  std::size_t count = 0;
  for (auto& row : (*n)["nodes"])
    if (row.value("state", "") == "alive")
      ++count;
  return count;
}

// ---- cluster ------------------------------------------------------------------

cluster::cluster(std::string binary) : binary_(std::move(binary)) {
}

node_spec cluster::make_spec(const std::string& id) const {
  node_spec s;
  s.id = id;
  s.udp_port = free_port(true);
  s.http_port = free_port(false);
  // Each id its own journal, kept across restarts within the test.
  s.data_dir = dir_.file("data-" + id);
  return s;
}

std::vector<node_spec> seeded_specs(const cluster& c, const std::vector<std::string>& ids) {
  std::vector<node_spec> specs;
  for (const auto& id : ids) {
    auto spec = c.make_spec(id);
    if (!specs.empty())
      spec.peers = {specs.front().udp_addr()};
    specs.push_back(std::move(spec));
  }
  return specs;
}

node_process& cluster::start(node_spec spec, millis ready_timeout) {
  auto log = dir_.file(spec.id + ".log");
  nodes_.push_back(std::make_unique<node_process>(binary_, std::move(spec), log));
  auto& n = *nodes_.back();
  if (!wait_until([&] { return n.healthy() || !n.proc().running(); },
                  ready_timeout)
      || !n.healthy())
    throw std::runtime_error("dice-node " + n.id() + " did not become healthy; "
                             "log:\n" + n.proc().log());
  return n;
}

std::vector<node_process*> cluster::start_formed(std::vector<node_spec> specs,
                                                 millis timeout) {
  std::vector<node_process*> formed;
  for (auto& spec : specs)
    formed.push_back(&start(std::move(spec)));
  if (!wait_until([&] {
        return std::all_of(formed.begin(), formed.end(), [&](node_process* n) {
          return n->alive_count() == formed.size();
        });
      }, timeout))
    throw std::runtime_error(std::to_string(formed.size())
                             + " dice-nodes did not all see each other alive; logs:\n"
                             + logs());
  return formed;
}

std::string cluster::logs() const {
  std::string out;
  for (auto& n : nodes_)
    out += "---- " + n->id() + " (" + n->proc().log_path() + ")\n"
           + n->proc().log();
  return out;
}

run_result run_node_to_exit(const std::vector<std::string>& args,
                            const temp_dir& dir, const std::string& log_name,
                            millis timeout) {
  auto start = std::chrono::steady_clock::now();
  // A node that does start keeps its journal in the test's directory.
  auto argv = args;
  if (std::find(argv.begin(), argv.end(), "--data-dir") == argv.end())
    argv.insert(argv.end(), {"--data-dir", dir.file(log_name + ".data")});
  process p(DICE_NODE_BIN, argv, dir.file(log_name));
  run_result r;
  r.exit_code = p.wait_exit(timeout);
  r.elapsed = std::chrono::duration_cast<millis>(
    std::chrono::steady_clock::now() - start);
  if (!r.exit_code)
    p.kill_now();
  r.output = p.log();
  return r;
}

certificate make_certificate(const temp_dir& dir, const std::string& name) {
  certificate c{dir.file(name + ".crt"), dir.file(name + ".key")};
  auto cmd = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
             " -days 2 -subj /CN=dice-test -addext subjectAltName=IP:127.0.0.1"
             " -keyout " + c.key + " -out " + c.cert + " > " + dir.file(name + ".log")
             + " 2>&1";
  if (std::system(cmd.c_str()) != 0)
    throw std::runtime_error("openssl could not make a certificate: see "
                             + dir.file(name + ".log"));
  std::filesystem::permissions(c.key, std::filesystem::perms::owner_read
                                        | std::filesystem::perms::owner_write);
  return c;
}

cli_result dice_cli(cluster& c, node_process& n, std::vector<std::string> args,
                    const std::string& log, millis timeout) {
  args.insert(args.begin(), {"--node", url_of(n)});
  if (!n.spec().tls_cert_file.empty())
    args.insert(args.begin() + 2, {"--ca-file", n.spec().tls_cert_file});
  process p(DICE_CLI_BIN, args, c.dir().file(log));
  auto code = p.wait_exit(timeout);
  return {code.value_or(-1), p.log()};
}

} // namespace dice::test
