// dice test PATH|ARCHIVE|GIT-URL: the project is packed here (a directory
// into a .tar.gz; a git repository cloned first; an archive sent as it
// is), uploaded to one node as an evaluation, and followed to its end.
#include "test_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "client.hpp"
#include "node/http_config.hpp"
#include "test_report.hpp"
#include "tester/project_archive.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dice::cli {

namespace {

const char* test_usage =
  "Usage: dice [--node URL] [--json] test PATH|ARCHIVE|GIT-URL [options]\n"
  "       dice [--node URL] [--json] test --follow ID [--junit FILE]\n"
  "       dice [--node URL] [--json] test --list\n"
  "Runs a project's tests on the cluster: modules as tasks (light pytest\n"
  "modules share one), one report with every module.\n"
  "PATH is a directory (packed here), ARCHIVE a .tar.gz, .tgz, .tar or .zip,\n"
  "GIT-URL a repository (cloned here with git clone --depth 1).\n"
  "Options:\n"
  "  --runner pytest|ctest|cmd\n"
  "                        pytest (default); ctest (a CMake project, built in\n"
  "                        each task's workspace, a task per test); or\n"
  "                        commands given with --module\n"
  "  --split file|test     pytest: a module per test file (default) or per\n"
  "                        test id; ctest: per test (the only split it has)\n"
  "  --module CMD          runner cmd: a command line to run (repeatable)\n"
  "  --timeout S           a task's time limit in seconds (default 600); a\n"
  "                        group that hits it runs its modules again alone\n"
  "  --reruns N            rerun failed tests up to N times; one that then\n"
  "                        passes is reported flaky (default 0)\n"
  "  --name NAME           the project's name (default: the path's last part);\n"
  "                        durations are remembered per name, longest first\n"
  "  --wait                follow the evaluation with live progress, print a\n"
  "                        pytest-like summary, exit 1 if any test failed\n"
  "  --wait-timeout S      give up waiting after S seconds (default 3600)\n"
  "  --junit FILE          with --wait: write the report as JUnit XML\n"
  "  --follow ID           follow an evaluation already submitted (from any node)\n"
  "  --list                the evaluations the cluster holds, newest first\n"
  "  --node URL, --token-file FILE, --ca-file FILE, --json   as for every\n"
  "                 command\n";

int fail(const std::string& why, int code = 1) {
  std::cerr << "dice test: error: " << why << "\n";
  return code;
}

struct test_args {
  std::string url, token_file, ca_file, target, runner = "pytest", split, name,
    junit, follow;
  std::vector<std::string> modules;
  long long timeout = 600, reruns = 0, wait_timeout = 3600;
  bool json = false, wait = false, list = false;
};

bool whole(const std::string& text, long long lo, long long hi, long long& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size() && out >= lo && out <= hi;
  } catch (...) {
    return false;
  }
}

bool is_git_url(const std::string& t) {
  return t.find("://") != std::string::npos || t.rfind("git@", 0) == 0
         || (t.size() > 4 && t.compare(t.size() - 4, 4, ".git") == 0);
}

bool is_archive(const std::string& t) {
  for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip"}) {
    std::string e = ext;
    if (t.size() > e.size() && t.compare(t.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A temporary directory, removed at the end of the command.
struct scratch {
  std::string path;
  scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/dice-test-XXXXXX";
    if (::mkdtemp(templ.data()))
      path = templ;
  }
  ~scratch() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
};

/// The project's archive bytes; empty with `error` set.
std::string project_bytes(const test_args& a, std::string& error) {
  scratch tmp;
  if (tmp.path.empty()) {
    error = "cannot make a temporary directory";
    return {};
  }
  std::string dir = a.target;
  std::error_code ec;
  if (is_git_url(a.target) && !fs::is_directory(a.target, ec)) {
    dir = tmp.path + "/src";
    std::string cmd = "git clone --quiet --depth 1 -- '" + a.target + "' '" + dir + "'";
    if (a.target.find('\'') != std::string::npos) {
      error = "a git URL with a quote is not supported";
      return {};
    }
    if (std::system(cmd.c_str()) != 0) {
      error = "git clone " + a.target + " failed";
      return {};
    }
  } else if (fs::is_regular_file(a.target, ec)) {
    if (!is_archive(a.target)) {
      error = a.target + " is not a .tar.gz, .tgz, .tar or .zip";
      return {};
    }
    return read_all(a.target);
  } else if (!fs::is_directory(a.target, ec)) {
    error = a.target + ": no such directory, archive or git repository";
    return {};
  }
  auto out = tmp.path + "/project.tar.gz";
  if (!pack_directory(dir, out, error))
    return {};
  return read_all(out);
}

httplib::Client make_client(const test_args& a, const std::string& token) {
  httplib::Client c(a.url);
  trust(c, a.ca_file);
  if (!token.empty())
    c.set_bearer_token_auth(token);
  c.set_connection_timeout(2);
  // Finding the modules (--split test runs pytest --collect-only) and
  // copying the blob to peers happen before the answer.
  c.set_read_timeout(600);
  c.set_write_timeout(600);
  return c;
}

std::optional<json> get_report(httplib::Client& c, const std::string& id,
                               std::string& error) {
  auto res = c.Get(("/evaluation/" + id).c_str());
  if (!res) {
    error = "lost contact with the node (" + describe(res.error())
            + "); the evaluation goes on: follow it from another node with "
              "dice --node URL test --follow " + id;
    return std::nullopt;
  }
  auto body = json::parse(res->body, nullptr, false);
  if (res->status != 200 || body.is_discarded()) {
    error = "GET /evaluation/" + id + " answered " + std::to_string(res->status) + ": "
            + (body.is_object() ? body.value("error", res->body) : res->body);
    return std::nullopt;
  }
  return body;
}

// GET /evaluation as a table, newest first.
int list_evaluations(httplib::Client& c, const test_args& a) {
  auto res = c.Get("/evaluation");
  if (!res)
    return fail("cannot reach " + a.url + ": " + describe(res.error()));
  auto body = json::parse(res->body, nullptr, false);
  if (res->status != 200 || body.is_discarded())
    return fail(a.url + " answered " + std::to_string(res->status) + ": "
                + res->body);
  if (a.json) {
    std::cout << body.dump() << "\n";
    return 0;
  }
  auto rows = body.value("evaluations", json::array());
  std::vector<json> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const json& x, const json& y) {
    return x.value("submitted_ms", 0LL) > y.value("submitted_ms", 0LL);
  });
  std::printf("%-26s %-20s %-8s %9s %7s %7s\n", "ID", "NAME", "STATE", "MODULES",
              "PASSED", "FAILED");
  for (const auto& e : sorted) {
    auto t = e.value("totals", json::object());
    auto modules = std::to_string(e.value("modules_done", 0)) + "/"
                   + std::to_string(e.value("modules_total", 0));
    std::printf("%-26s %-20s %-8s %9s %7llu %7llu\n", e.value("id", "").c_str(),
                e.value("name", "").c_str(), e.value("state", "").c_str(),
                modules.c_str(), t.value("passed", 0ULL),
                t.value("failed", 0ULL) + t.value("errors", 0ULL));
  }
  if (sorted.empty())
    std::cout << "no evaluations\n";
  return 0;
}

int follow(httplib::Client& c, const test_args& a, const std::string& id) {
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::seconds(a.wait_timeout);
  bool tty = !a.json && ::isatty(1);
  std::string last;
  json report;
  for (int misses = 0;;) {
    std::string error;
    auto r = get_report(c, id, error);
    if (!r) {
      // A moment of trouble (a busy node) is not the end; three in a row are.
      if (++misses >= 3)
        return fail(error);
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    misses = 0;
    report = std::move(*r);
    if (!a.json) {
      auto line = progress_line(report);
      if (line != last) {
        std::cout << (tty ? "\r\033[K" : "") << line << (tty ? "" : "\n") << std::flush;
        last = line;
      }
    }
    if (report.value("state", "") == "done")
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      if (tty)
        std::cout << "\n";
      return fail("evaluation " + id + " did not finish within --wait-timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // The evaluation's own time, submit to last module, whoever follows it
  // and since when (a --follow of one long done says its real time).
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto submitted = report.value("submitted_ms", std::int64_t{0});
  auto finished = report.value("finished_ms", std::int64_t{0});
  if (submitted > 0 && finished >= submitted)
    secs = static_cast<double>(finished - submitted) / 1000.0;
  if (tty)
    std::cout << "\n";
  if (!a.junit.empty()) {
    std::ofstream out(a.junit, std::ios::trunc);
    out << junit_xml(report);
    if (!out)
      return fail("cannot write " + a.junit);
  }
  if (a.json)
    std::cout << report.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  else
    std::cout << summary_text(report, secs);
  return exit_status(report);
}

} // namespace

std::optional<int> maybe_test_command(int argc, char** argv) {
  // The command is the first word that is not an option or an option's value.
  int at = 1;
  test_args a;
  a.url = std::getenv("DICE_NODE") ? std::getenv("DICE_NODE") : "http://127.0.0.1:8400";
  if (const char* f = std::getenv("DICE_TOKEN_FILE"))
    a.token_file = f;
  if (const char* f = std::getenv("DICE_CA_FILE"))
    a.ca_file = f;
  for (; at < argc; ++at) {
    std::string w = argv[at];
    if (w == "--json") {
      a.json = true;
    } else if ((w == "--node" || w == "--token-file" || w == "--ca-file")
               && at + 1 < argc) {
      (w == "--node" ? a.url : w == "--ca-file" ? a.ca_file : a.token_file) = argv[++at];
    } else {
      break;
    }
  }
  if (at >= argc || std::string(argv[at]) != "test")
    return std::nullopt;
  std::map<std::string, std::string*> text{
    {"--runner", &a.runner}, {"--split", &a.split},   {"--name", &a.name},
    {"--junit", &a.junit},   {"--follow", &a.follow}, {"--node", &a.url},
    {"--token-file", &a.token_file}, {"--ca-file", &a.ca_file}};
  std::map<std::string, std::pair<long long*, long long>> numbers{
    {"--timeout", {&a.timeout, 86'400}}, {"--reruns", {&a.reruns, 10}},
    {"--wait-timeout", {&a.wait_timeout, 7 * 86'400}}};
  for (int i = at + 1; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "-h" || w == "--help") {
      std::cout << test_usage;
      return 0;
    }
    if (w == "--wait" || w == "--json" || w == "--list") {
      (w == "--wait" ? a.wait : w == "--json" ? a.json : a.list) = true;
    } else if (text.count(w) || numbers.count(w) || w == "--module") {
      if (i + 1 == argc)
        return fail(w + " needs a value", 2);
      std::string v = argv[++i];
      if (w == "--module")
        a.modules.push_back(v);
      else if (text.count(w))
        *text[w] = v;
      else if (!whole(v, numbers[w].first == &a.reruns ? 0 : 1, numbers[w].second,
                      *numbers[w].first))
        return fail(w + " must be a number from " + (numbers[w].first == &a.reruns ? "0" : "1")
                      + " to " + std::to_string(numbers[w].second), 2);
    } else if (w.rfind("--", 0) == 0) {
      return fail("unknown option " + w + " (see dice test --help)", 2);
    } else if (a.target.empty()) {
      a.target = w;
    } else {
      return fail("one project at a time (got " + a.target + " and " + w + ")", 2);
    }
  }
  if (a.list ? !a.target.empty() || !a.follow.empty()
             : a.target.empty() == a.follow.empty())
    return fail("give a project (PATH, ARCHIVE or GIT-URL), --follow ID or "
                "--list", 2);
  std::string token;
  if (!a.token_file.empty()) {
    try {
      token = dice::read_http_token_file(a.token_file, "--token-file");
    } catch (const std::exception& e) {
      return fail(e.what(), 2);
    }
  }
  if (auto why = ca_file_problem(a.ca_file); !why.empty())
    return fail("--ca-file: " + why, 2);
  auto c = make_client(a, token);
  if (a.list)
    return list_evaluations(c, a);
  if (!a.follow.empty())
    return follow(c, a, a.follow);
  std::string error;
  auto bytes = project_bytes(a, error);
  if (bytes.empty())
    return fail(error);
  auto name = a.name;
  if (name.empty()) {
    auto p = fs::path(a.target);
    name = (p.has_filename() ? p : p.parent_path()).filename().string();
    for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip", ".git"}) {
      std::string e = ext;
      if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
        name.resize(name.size() - e.size());
    }
  }
  auto split = !a.split.empty() ? a.split : a.runner == "ctest" ? "test" : "file";
  httplib::Params params{{"runner", a.runner}, {"split", split}, {"name", name},
                         {"timeout", std::to_string(a.timeout)},
                         {"reruns", std::to_string(a.reruns)}};
  if (!a.modules.empty())
    params.emplace("modules", json(a.modules).dump());
  auto path = httplib::append_query_params("/evaluation", params);
  auto res = c.Post(path.c_str(), bytes, "application/octet-stream");
  if (!res)
    return fail("cannot reach " + a.url + ": " + describe(res.error()));
  auto body = json::parse(res->body, nullptr, false);
  if ((res->status != 201 && res->status != 202) || body.is_discarded())
    return fail(a.url + " refused the project (" + std::to_string(res->status) + "): "
                + (body.is_object() ? body.value("error", res->body) : res->body));
  auto id = body.value("id", "");
  if (!a.wait) {
    if (a.json)
      std::cout << body.dump() << "\n";
    else
      std::cout << id << "\n";
    return 0;
  }
  if (!a.json)
    std::cout << "evaluation " << id << ": " << body.value("modules", 0)
              << " module(s) of " << name << " on " << a.url << "\n";
  return follow(c, a, id);
}

} // namespace dice::cli
