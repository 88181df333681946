// The claim path as a trace of production nodes (like etcd raft's testdata
// interaction tests): testdata/*.txt holds commands and the trace each must
// print; a change of the protocol shows as a diff. DICE_REWRITE_TRACES=1
// rewrites the files with what the code prints now (review the diff before
// committing).
//
// The nodes are actor_cluster's: dice-node's composition on the simulated
// network under CAF's test coordinator, each subsystem an actor, traced by
// queue_trace (queue/queue_trace.hpp).
//
// The file: blocks of a command line, "----", the expected output, and a
// blank line; lines starting with '#' between blocks are comments.
// Commands:
//   cluster NODE... [slots=N] [prefetch=N] [submit-claim-ms=N]
//                                            nodes n1, n2, ... that have
//                                            met through membership
//   submit NODE TASK                         a user submits a 100 ms task
//   run MS                                   time passes, 1 ms a step
//   chains NODE TASK                         the hop chains of TASK at NODE
// A trace line is one input of a subsystem (or one event sent to the
// bridge, the executor or the user), indented under the input whose
// handling emitted it; only points naming the traced task (and free
// seats) are shown, each under the nearest shown point it descends from.
// A received datagram is communication's input from outside the queue, as
// are a user's submit and, not shown, timer ticks. "@+N ms" lines give
// the virtual time since the cluster formed; trees are printed each
// whole, so a root handled later at the same time follows a whole tree.
#include <catch2/catch.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "vocabulary/queue_messages.hpp"
#include "simulation/actor_cluster.hpp"

using namespace dice;

namespace {

const char* name_of(station s) {
  switch (s) {
    case station::communication: return "communication";
    case station::known_tasks: return "known_tasks";
    case station::ready_queue: return "ready_queue";
    case station::ranking: return "ranking";
    case station::running_tasks: return "running_tasks";
    case station::unknown_resolver: return "unknown_resolver";
    case station::bridge: return "bridge";
    case station::executor: return "executor";
    case station::world: return "user";
  }
  return "?";
}

template <class E>
std::string type_name() {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> raw(
    abi::__cxa_demangle(typeid(E).name(), nullptr, nullptr, &status),
    std::free);
  std::string name = status == 0 ? raw.get() : typeid(E).name();
  auto at = name.rfind("::");
  return at == std::string::npos ? name : name.substr(at + 2);
}

// "dequeue t1 a1 by b", "info DONE t1 a1", ...
std::string describe(const wire::Message& m) {
  if (m.body_case() == wire::Message::BODY_NOT_SET)
    return "(empty)";
  std::string out = m.GetDescriptor()
                      ->FindFieldByNumber(static_cast<int>(m.body_case()))
                      ->name();
  if (m.has_info())
    out += " " + wire::TaskPhase_Name(m.info().phase());
  auto id = task_id_of(m);
  if (!id.empty())
    out += " " + id;
  if (m.has_dequeue())
    out += " a" + std::to_string(m.dequeue().attempt()) + " by "
           + m.dequeue().claim().node_id();
  if (m.has_info())
    out += " a" + std::to_string(m.info().attempt());
  return out;
}

template <class T, class = void>
struct has_task_id : std::false_type {};
template <class T>
struct has_task_id<T, std::void_t<decltype(std::declval<T>().task_id)>>
  : std::true_type {};

// The event's task ("" if none) and its line.
std::pair<std::string, std::string> describe(const ev::event& e) {
  return std::visit(
    [](const auto& x) -> std::pair<std::string, std::string> {
      using E = std::decay_t<decltype(x)>;
      auto line = type_name<E>();
      std::string task;
      if constexpr (has_task_id<E>::value)
        task = x.task_id;
      if constexpr (std::is_same_v<E, ev::task_changed>) {
        line += " " + x.task_id + " " + wire::TaskPhase_Name(x.state.phase())
                + " a" + std::to_string(x.state.attempt());
        if (!x.state.claim().node_id().empty())
          line += " by " + x.state.claim().node_id();
      } else if constexpr (std::is_same_v<E, ev::claim_heard>) {
        task = x.claim.task_id();
        line += " " + task + " a" + std::to_string(x.claim.attempt()) + " by "
                + x.claim.claim().node_id() + ", merged "
                + wire::TaskPhase_Name(x.state.phase()) + " by "
                + x.state.claim().node_id();
      } else if constexpr (std::is_same_v<E, ev::merge_message>
                           || std::is_same_v<E, ev::broadcast>) {
        task = task_id_of(x.message);
        line += " " + describe(x.message);
      } else if constexpr (std::is_same_v<E, ev::originate>) {
        task = task_id_of(x.op);
        line += " " + describe(x.op);
      } else if constexpr (std::is_same_v<E, ev::unicast>
                           || std::is_same_v<E, ev::send_to>) {
        task = task_id_of(x.message);
        line += " to " + x.peer + ": " + describe(x.message);
      } else if constexpr (std::is_same_v<E, ev::free_slots>) {
        task = "*";
        line += " seats " + std::to_string(x.count) + ", slots "
                + std::to_string(x.slots);
      } else if constexpr (std::is_same_v<E, ev::task_offer>) {
        line += " " + x.task_id + " a" + std::to_string(x.attempt)
                + (x.matched ? " matched" : " staggered");
      } else if constexpr (std::is_same_v<E, ev::start_execution>
                           || std::is_same_v<E, ev::run_order>
                           || std::is_same_v<E, ev::cancel_order>) {
        line += " " + x.task_id + " a" + std::to_string(x.attempt);
      } else if constexpr (std::is_same_v<E, ev::execution_report>) {
        line += " " + x.task_id + " a" + std::to_string(x.attempt)
                + (x.ok ? " ok" : " failed");
      } else if constexpr (has_task_id<E>::value) {
        line += " " + x.task_id;
      }
      return {task, line};
    },
    e);
}

// One traced point: where, what, the point that caused it, and the input
// at the start of its chain.
struct point {
  station at;
  std::string line;
  std::uint64_t cause;
  std::string root;
  bool shown; // it names the traced task (or free seats)
};

// The production nodes of actor_cluster, each point of their queue
// subsystems recorded as it is handled. Task ids are printed by the names
// the commands gave them (t1, ...), in the order the nodes first name them.
struct tracer {
  std::unique_ptr<actor_cluster> c;
  std::string task; // traced, by its name
  std::map<std::string, std::string> names; // real id -> name
  std::vector<std::string> pending;           // names submitted, not yet seen
  std::ostringstream out;
  // Per node: its points by id, and their order of handling.
  std::map<std::string, std::map<std::uint64_t, point>> seen;
  std::vector<std::pair<std::string, std::uint64_t>> order; // this command's
  std::map<std::pair<std::string, std::uint64_t>, millis> when;
  millis formed = 0; // when the cluster command returned: times count from it

  std::string name_of_task(const std::string& id) {
    if (id.empty() || id == "*")
      return id;
    auto it = names.find(id);
    if (it != names.end())
      return it->second;
    if (pending.empty())
      return id;
    auto name = pending.front();
    pending.erase(pending.begin());
    return names[id] = name;
  }

  // The line with every real task id replaced by its name.
  std::string renamed(std::string line) const {
    for (const auto& [id, name] : names)
      for (auto at = line.find(id); at != std::string::npos;
           at = line.find(id, at + name.size()))
        line.replace(at, id.size(), name);
    return line;
  }

  void on_point(const std::string& node, const trace_point& p) {
    std::string about, line;
    if (p.event) {
      std::tie(about, line) = describe(*p.event);
    } else {
      line = p.input;
      if (p.message) {
        about = task_id_of(*p.message);
        line += " from " + p.message->sender_id() + ": " + describe(*p.message);
      }
    }
    about = name_of_task(about);
    auto& mine = seen[node];
    auto up = p.cause != 0 ? mine.find(p.cause) : mine.end();
    std::string root = up != mine.end() ? up->second.root : renamed(line);
    bool shown = about == "*" || (!about.empty() && about == task);
    mine[p.id] = {p.at, line, p.cause, root, shown};
    order.emplace_back(node, p.id);
    when[{node, p.id}] = c->now();
  }

  // This command's shown points as trees, each under the nearest shown
  // point it descends from; roots and siblings in the order handled. A
  // time line precedes each root handled at a new virtual time.
  void print() {
    using key = std::pair<std::string, std::uint64_t>;
    std::map<key, std::vector<key>> children;
    std::vector<key> roots;
    for (const auto& k : order) {
      const auto& [node, id] = k;
      const auto& p = seen[node].at(id);
      if (!p.shown)
        continue;
      auto parent = p.cause;
      while (parent != 0 && !seen[node].at(parent).shown)
        parent = seen[node].at(parent).cause;
      (parent != 0 ? children[{node, parent}] : roots).push_back(k);
    }
    millis printed_at = -1;
    std::function<void(const key&, std::size_t)> tree = [&](const key& k,
                                                            std::size_t d) {
      const auto& p = seen[k.first].at(k.second);
      out << k.first << "  " << std::string(2 * d, ' ') << name_of(p.at)
          << " <- " << renamed(p.line) << "\n";
      for (const auto& c : children[k])
        tree(c, d + 1);
    };
    for (const auto& r : roots) {
      if (when[r] != printed_at) {
        printed_at = when[r];
        out << "@+" << printed_at - formed << " ms\n";
      }
      tree(r, 0);
    }
    order.clear();
  }

  void start(const std::vector<std::string>& ids, queue_config cfg) {
    actor_cluster_options o;
    o.queue = cfg;
    o.trace = [this](const std::string& node, const trace_point& p) {
      on_point(node, p);
    };
    c = std::make_unique<actor_cluster>(o);
    for (const auto& id : ids)
      c->start(id);
  }

  // The chain of subsystem inputs from an input to each outcome of `task`
  // at `node`: its DEQUEUE, its execution order, its DONE report, and the
  // state that let ready_queue offer it.
  void chains(const std::string& node) {
    const auto& mine = seen[node];
    auto ends = [&](const point& d) {
      auto line = renamed(d.line);
      auto mark = " " + task;
      bool named = line.find(mark) != std::string::npos;
      return named
             && ((d.at == station::ready_queue
                  && line.rfind("task_changed", 0) == 0
                  && line.find(" READY") != std::string::npos)
                 || (d.at == station::bridge
                     && (line.find("broadcast dequeue") == 0
                         || line.find("broadcast info DONE") == 0))
                 || (d.at == station::executor
                     && line.rfind("run_order", 0) == 0));
    };
    for (const auto& [id, d] : mine) {
      if (!ends(d))
        continue;
      std::vector<std::string> path;
      for (auto at = id; at != 0;) {
        auto& x = mine.at(at);
        path.insert(path.begin(), name_of(x.at));
        at = x.cause;
      }
      std::string line = d.root;
      for (const auto& s : path)
        line += " -> " + s;
      out << node << "  " << line << " (" << renamed(d.line) << "): "
          << path.size() - 1 << " hops\n";
    }
  }
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

std::string run_command(tracer& t, const std::string& command) {
  t.out.str("");
  auto w = words(command);
  if (w.empty())
    throw std::runtime_error("empty command");
  if (w[0] == "cluster") {
    queue_config cfg;
    std::vector<std::string> ids;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (w[i].rfind("slots=", 0) == 0)
        cfg.slots = std::stoul(w[i].substr(6));
      else if (w[i].rfind("prefetch=", 0) == 0)
        cfg.prefetch = std::stoul(w[i].substr(9));
      else if (w[i].rfind("submit-claim-ms=", 0) == 0)
        cfg.submit_claim_ms = std::stol(w[i].substr(16));
      else
        ids.push_back(w[i]);
    }
    t.start(ids, cfg);
    // Membership makes them live to one another; no task yet to trace.
    t.c->step(3000);
    t.order.clear();
    t.formed = t.c->now();
    for (const auto& id : ids)
      t.out << id << " ";
    t.out << "live, slots " << cfg.slots << ", prefetch " << cfg.prefetch
          << "\n";
  } else if (w[0] == "submit" && w.size() == 3) {
    t.task = w[2];
    t.pending.push_back(w[2]);
    wire::TaskSpec spec;
    spec.set_kind("sleep");
    spec.set_payload("100");
    t.c->submit(w[1], spec, 0);
    t.print();
  } else if (w[0] == "run" && w.size() == 2) {
    for (long ms = std::stol(w[1]); ms > 0; --ms)
      t.c->step(1);
    t.print();
  } else if (w[0] == "chains" && w.size() == 3) {
    t.task = w[2];
    t.chains(w[1]);
  } else {
    throw std::runtime_error("unknown command: " + command);
  }
  return t.out.str();
}

struct block {
  std::string command;
  std::string expected;
};

// The file's blocks; `head` keeps the comments before each for rewriting.
std::vector<block> parse(const std::string& path,
                         std::vector<std::string>& heads) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<block> out;
  std::string line, head;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      head += line + "\n";
      continue;
    }
    block b{line, ""};
    REQUIRE(std::getline(in, line));
    REQUIRE(line == "----");
    while (std::getline(in, line) && !line.empty())
      b.expected += line + "\n";
    heads.push_back(head);
    head.clear();
    out.push_back(b);
  }
  return out;
}

// A line diff (longest common subsequence): "-" expected, "+" got.
std::string diff(const std::string& expected, const std::string& got) {
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
      v.push_back(l);
    return v;
  };
  auto a = lines(expected), b = lines(got);
  std::vector<std::vector<std::size_t>> lcs(
    a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1
                               : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::ostringstream out;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out << "  " << a[i++] << "\n";
      ++j;
    } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out << "+ " << b[j++] << "\n";
    } else {
      out << "- " << a[i++] << "\n";
    }
  }
  return out.str();
}

void check_trace_file(const std::string& name) {
  auto path = std::string(DICE_TESTDATA_DIR) + "/" + name;
  std::vector<std::string> heads;
  auto blocks = parse(path, heads);
  REQUIRE(!blocks.empty());
  tracer t;
  std::ostringstream rewritten;
  bool rewrite = std::getenv("DICE_REWRITE_TRACES") != nullptr;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    auto got = run_command(t, b.command);
    rewritten << heads[i] << b.command << "\n----\n" << got << "\n";
    if (rewrite)
      continue;
    INFO(name << ": " << b.command << "\n" << diff(b.expected, got));
    CHECK(got == b.expected);
  }
  if (rewrite) {
    std::ofstream(path) << rewritten.str();
    WARN("rewrote " << path);
  }
}

} // namespace

TEST_CASE("trace: one task on a 2-node cluster, run at once by the node it "
          "was submitted to (testdata/claim_2_nodes.txt)",
          "[queue][trace]") {
  check_trace_file("claim_2_nodes.txt");
}

TEST_CASE("trace: one claim on a 2-node cluster, from the ENQUEUE datagram "
          "to DONE (testdata/claim_matched_2_nodes.txt)",
          "[queue][trace]") {
  check_trace_file("claim_matched_2_nodes.txt");
}

TEST_CASE("trace: a mismatch is reported as a diff", "[queue][trace]") {
  auto d = diff("a\nb\nc\n", "a\nx\nc\n");
  CHECK(d == "  a\n+ x\n- b\n  c\n");
}
