// What survives: kill -9 mid-write, a torn tail, a full disk. Each writer
// runs in a forked child (a kill, a file size limit, an exit without
// closing must not touch this process) and reports through shared memory
// how many ops it had flushed; the parent reopens the store and checks.
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <thread>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenarios.hpp"
#include "store.hpp"

namespace bench {

namespace {

namespace fs = std::filesystem;

const store_kind kinds[] = {store_kind::journal, store_kind::sqlite};

struct shared_state {
  std::atomic<std::uint64_t> flushed{0};     // ops flushed without error
  std::atomic<std::uint64_t> first_error{0}; // ops flushed when one failed
  std::atomic<std::uint64_t> lifted{0};      // ops flushed when space returned
  std::atomic<std::uint64_t> final_ops{0};
  std::atomic<std::uint64_t> errors_full{0};
  std::atomic<std::uint64_t> errors_after{0};
};

shared_state* make_shared_state() {
  void* p = ::mmap(nullptr, sizeof(shared_state), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error("mmap failed");
  return new (p) shared_state;
}

// Runs `child` in a child process; returns its wait status.
template <class F>
pid_t spawn(F child) {
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::alarm(60); // bounded, whatever happens
    int rc = 0;
    try {
      rc = child();
    } catch (...) {
      rc = 3;
    }
    ::_exit(rc);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

struct loaded {
  bool opened = false;
  verdict v;
};

loaded reopen(store_kind k, const std::string& dir, std::uint64_t tasks,
              std::uint64_t lag, std::uint64_t forget_lag, std::uint64_t ops,
              std::uint64_t from = 0) {
  loaded out;
  try {
    auto st = open_store(k, dir, dice::journal_sync::batch);
    auto records = st->load();
    out.v = verify(records, tasks, lag, forget_lag, ops, from);
    out.opened = true;
  } catch (const std::exception&) {
  }
  return out;
}

} // namespace

void kill9(const settings& s, report& out) {
  const std::uint64_t tasks = 2000000, lag = 8, forget_lag = 5000;
  std::mt19937_64 rng(s.seed);
  auto* shared = make_shared_state();
  for (auto k : kinds) {
    std::uint64_t killed = 0, lost = 0, corrupt = 0, failed = 0, ops = 0, loaded = 0;
    for (int trial = 0; trial < s.kills; ++trial) {
      auto dir = s.dir + "/kill-" + name_of(k);
      fs::remove_all(dir);
      auto per_flush = 1 + rng() % 64;
      auto after_ms = 100 + rng() % 1900;
      shared->flushed = 0;
      pid_t pid = spawn([&] {
        auto st = open_store(k, dir, dice::journal_sync::batch);
        driver d(*st, per_flush);
        d.on_flush = [&](std::uint64_t n) { shared->flushed = n; };
        op_stream stream(tasks, lag, forget_lag);
        op o;
        while (stream.next(o))
          d.apply(o);
        return 0;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
      ::kill(pid, SIGKILL);
      int status = wait_for(pid);
      killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
      std::uint64_t flushed = shared->flushed;
      auto r = reopen(k, dir, tasks, lag, forget_lag, flushed);
      failed += !r.opened;
      lost += r.v.lost;
      corrupt += r.v.corrupt;
      ops += flushed;
      loaded += r.v.tasks_loaded;
      fs::remove_all(dir);
    }
    auto row = [&](const char* metric, double v) {
      out.row("kill", name_of(k), "batch", "trials=" + std::to_string(s.kills),
              metric, v);
    };
    row("killed_by_sigkill", static_cast<double>(killed));
    row("ops_flushed_mean", static_cast<double>(ops) / s.kills);
    row("tasks_loaded_mean", static_cast<double>(loaded) / s.kills);
    row("open_failures", static_cast<double>(failed));
    row("lost", static_cast<double>(lost));
    row("corrupt_loaded", static_cast<double>(corrupt));
  }
  ::munmap(shared, sizeof(shared_state));
}

void torn_tail(const settings& s, report& out) {
  const std::uint64_t tasks = 500, lag = 8;
  auto* shared = make_shared_state();
  for (auto k : kinds) {
    auto dir = s.dir + "/torn-" + name_of(k);
    fs::remove_all(dir);
    shared->flushed = 0;
    // Exits without closing, as a crash would: SQLite's WAL stays.
    int status = wait_for(spawn([&] {
      auto st = open_store(k, dir, dice::journal_sync::batch);
      driver d(*st, 16);
      op_stream stream(tasks, lag, 0);
      op o;
      while (stream.next(o))
        d.apply(o);
      d.flush();
      ::_exit(0);
      return 0;
    }));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("torn-tail writer failed");
    std::uint64_t flushed = shared->flushed;
    auto target = store_files(k, dir).back(); // the journal, or the WAL
    auto size = fs::file_size(target);
    auto param = [&](std::uint64_t at) { return "cut=" + std::to_string(at); };
    out.row("torn", name_of(k), "batch", param(size), "file_bytes",
            static_cast<double>(size));
    std::vector<std::uint64_t> cuts;
    for (int i = 0; i < 10; ++i) {
      cuts.push_back(size * i / 10);
      cuts.push_back(size * i / 10 + 13); // inside a record or a frame
    }
    cuts.push_back(size - 1);
    cuts.push_back(size);
    std::uint64_t failed = 0, corrupt = 0;
    for (auto at : cuts) {
      auto cut = s.dir + "/torn-cut";
      fs::remove_all(cut);
      fs::create_directories(cut);
      for (const auto& f : store_files(k, dir))
        if (fs::exists(f))
          fs::copy_file(f, cut + "/" + fs::path(f).filename().string());
      fs::resize_file(cut + "/" + fs::path(target).filename().string(), at);
      auto r = reopen(k, cut, tasks, lag, 0, at == size ? flushed : 0);
      failed += !r.opened;
      corrupt += r.v.corrupt;
      out.row("torn", name_of(k), "batch", param(at), "tasks_loaded",
              static_cast<double>(r.v.tasks_loaded));
      if (at == size)
        out.row("torn", name_of(k), "batch", param(at), "lost_uncut",
                static_cast<double>(r.v.lost));
      fs::remove_all(cut);
    }
    out.row("torn", name_of(k), "batch", "cuts=" + std::to_string(cuts.size()),
            "open_failures", static_cast<double>(failed));
    out.row("torn", name_of(k), "batch", "cuts=" + std::to_string(cuts.size()),
            "corrupt_loaded", static_cast<double>(corrupt));
    fs::remove_all(dir);
  }
  ::munmap(shared, sizeof(shared_state));
}

void full_disk(const settings& s, report& out) {
  const std::uint64_t tasks = 200000, lag = 8, limit = 2 << 20;
  auto* shared = make_shared_state();
  for (auto k : kinds) {
    auto dir = s.dir + "/full-" + name_of(k);
    fs::remove_all(dir);
    new (shared) shared_state;
    // Files may not grow past `limit` (EFBIG, SIGXFSZ ignored) until 20
    // flushes after the first error; then 50 more flushes with room again.
    int status = wait_for(spawn([&] {
      std::signal(SIGXFSZ, SIG_IGN);
      rlimit rl{};
      ::getrlimit(RLIMIT_FSIZE, &rl);
      auto roomy = rl.rlim_cur;
      rl.rlim_cur = limit;
      ::setrlimit(RLIMIT_FSIZE, &rl);
      auto st = open_store(k, dir, dice::journal_sync::batch);
      driver d(*st, 16);
      int phase = 0, flushes = 0;
      std::uint64_t errors_at_lift = 0;
      d.on_flush = [&](std::uint64_t n) {
        auto errors = st->write_errors();
        if (phase == 0 && errors == 0) {
          shared->flushed = n;
        } else if (phase == 0) {
          phase = 1;
          shared->first_error = n;
        } else if (phase == 1 && ++flushes == 20) {
          phase = 2;
          flushes = 0;
          rl.rlim_cur = roomy;
          ::setrlimit(RLIMIT_FSIZE, &rl);
          shared->lifted = n;
          shared->errors_full = errors;
          errors_at_lift = errors;
        } else if (phase == 2 && ++flushes == 50) {
          phase = 3;
          shared->final_ops = n;
          shared->errors_after = errors - errors_at_lift;
        }
      };
      op_stream stream(tasks, lag, 0);
      op o;
      while (phase < 3 && stream.next(o))
        d.apply(o);
      st.reset(); // closes as a node stopping would
      return phase == 3 ? 0 : 4;
    }));
    auto row = [&](const char* metric, double v) {
      out.row("full", name_of(k), "batch", "limit=2MiB", metric, v);
    };
    row("child_exit_ok", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : 0);
    row("child_crashed", WIFSIGNALED(status) ? 1 : 0);
    row("ops_flushed_before_error", static_cast<double>(shared->flushed));
    row("write_errors_while_full", static_cast<double>(shared->errors_full));
    row("write_errors_after_room", static_cast<double>(shared->errors_after));
    auto before = reopen(k, dir, tasks, lag, 0, shared->flushed);
    row("reopen_ok", before.opened ? 1 : 0);
    row("tasks_loaded", static_cast<double>(before.v.tasks_loaded));
    row("lost_before_error", static_cast<double>(before.v.lost));
    row("corrupt_loaded", static_cast<double>(before.v.corrupt));
    // Tasks enqueued once there was room again, and flushed.
    auto after = reopen(k, dir, tasks, lag, 0, shared->final_ops, shared->lifted);
    row("lost_after_room", static_cast<double>(after.v.lost));
    fs::remove_all(dir);
  }
  ::munmap(shared, sizeof(shared_state));
}

} // namespace bench
