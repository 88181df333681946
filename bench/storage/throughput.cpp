// The physical limits of the disk, append throughput, and restart and disk
// use with many tasks held.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "scenarios.hpp"
#include "store.hpp"

namespace bench {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

const store_kind kinds[] = {store_kind::journal, store_kind::sqlite};

// Bytes this process has passed to write() so far (/proc/self/io wchar):
// appends, checkpoints and rewrites alike.
std::uint64_t bytes_written() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t v = 0;
  while (io >> key >> v)
    if (key == "wchar:")
      return v;
  return 0;
}

} // namespace

void physical(const settings& s, report& out) {
  auto path = s.dir + "/phys";
  // Sequential bandwidth: 256 MiB in 1 MiB writes, then one fdatasync.
  std::string chunk(1 << 20, 'x');
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto t0 = clock_type::now();
  for (int i = 0; i < 256; ++i)
    if (::write(fd, chunk.data(), chunk.size()) < 0)
      break;
  ::fdatasync(fd);
  out.row("phys", "disk", "-", "256MiB", "seq_write_MBps", 256 * 1.048576 / since(t0));
  ::close(fd);
  fs::remove(path);
  // Sync rate: 512-byte appends, each followed by fdatasync (3 s at most).
  fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  std::string small(512, 'y');
  int n = 0;
  t0 = clock_type::now();
  for (; n < 20000 && since(t0) < 3; ++n) {
    if (::write(fd, small.data(), small.size()) < 0)
      break;
    ::fdatasync(fd);
  }
  out.row("phys", "disk", "-", "512B", "fdatasync_per_s", n / since(t0));
  ::close(fd);
  fs::remove(path);
}

void append(const settings& s, report& out) {
  for (int round = 1; round <= s.rounds; ++round)
    for (auto sync : {dice::journal_sync::batch, dice::journal_sync::always})
      for (auto n : s.per_flush)
        for (auto k : kinds) {
          auto dir = s.dir + "/append-" + name_of(k);
          auto st = open_store(k, dir, sync);
          driver d(*st, n);
          auto written = bytes_written();
          op_stream ops(s.append_tasks, 8, 0);
          op o;
          while (ops.next(o) && d.store_seconds < s.append_seconds)
            d.apply(o);
          d.flush();
          written = bytes_written() - written;
          auto param = "N=" + std::to_string(n) + ":r" + std::to_string(round);
          auto row = [&](const char* metric, double v) {
            out.row("append", name_of(k), name_of(sync), param, metric, v);
          };
          row("records", static_cast<double>(d.ops));
          row("records_per_s", d.ops / d.store_seconds);
          row("lifecycles_per_s", d.ops / 3.0 / d.store_seconds);
          row("flushes_per_s", d.flushes / d.store_seconds);
          row("file_bytes_per_record", static_cast<double>(store_bytes(k, dir)) / d.ops);
          row("written_bytes_per_record", static_cast<double>(written) / d.ops);
          row("write_errors", static_cast<double>(st->write_errors()));
          st.reset();
          fs::remove_all(dir);
        }
}

namespace {

// A restart as a node does it: load, merge into a replica, then (the
// journal) rewrite the file. Rows under `when`; the replica is returned.
void restart(store_kind k, const std::string& dir, const std::string& when,
             std::unique_ptr<store>& st, dice::known_tasks& replica,
             dice::forgotten_set& forgotten, report& out,
             const std::string& param) {
  auto row = [&](const std::string& metric, double v) {
    out.row("scale", name_of(k), "batch", param, when + "_" + metric, v);
  };
  evict_cache(k, dir);
  auto t0 = clock_type::now();
  st = open_store(k, dir, dice::journal_sync::batch);
  auto records = st->load();
  double load_s = since(t0);
  rebuild(records, replica, forgotten);
  double rebuild_s = since(t0) - load_s;
  row("records_loaded", static_cast<double>(records.size()));
  records = {};
  st->after_load(replica, forgotten);
  row("load_s", load_s);
  row("rebuild_s", rebuild_s);
  row("restart_s", since(t0));
  row("tasks_restored", static_cast<double>(replica.size()));
  row("bytes_after", static_cast<double>(store_bytes(k, dir)));
}

} // namespace

void scale(const settings& s, report& out) {
  for (auto n : s.held)
    for (auto k : kinds) {
      auto dir = s.dir + "/scale-" + name_of(k);
      auto param = "tasks=" + std::to_string(n);
      auto row = [&](const std::string& metric, double v) {
        out.row("scale", name_of(k), "batch", param, metric, v);
      };
      std::uint64_t digest = 0;
      {
        auto st = open_store(k, dir, dice::journal_sync::batch);
        driver d(*st, 64);
        op_stream ops(n, 8, 0);
        op o;
        while (ops.next(o))
          d.apply(o);
        d.flush();
        digest = d.replica.digest();
        row("write_s", d.store_seconds);
        row("write_records_per_s", d.ops / d.store_seconds);
        row("bytes_before_close", static_cast<double>(store_bytes(k, dir)));
        auto t0 = clock_type::now();
        st.reset();
        row("close_s", since(t0));
      }
      row("bytes_held", static_cast<double>(store_bytes(k, dir)));
      std::unique_ptr<store> st;
      dice::known_tasks replica;
      dice::forgotten_set forgotten;
      restart(k, dir, "restart", st, replica, forgotten, out, param);
      row("restart_same_replica", replica.digest() == digest ? 1 : 0);
      // Forget the oldest 90%, in order, as their retention passes.
      driver f(*st, 64);
      f.replica = std::move(replica);
      f.forgotten = std::move(forgotten);
      for (std::uint64_t i = 0; i < n / 10 * 9; ++i)
        f.apply(op{op::forget, i, dice::wire::DONE});
      f.flush();
      row("forget_s", f.store_seconds);
      row("forgets_per_s", f.ops / f.store_seconds);
      row("bytes_after_forget", static_cast<double>(store_bytes(k, dir)));
      if (k == store_kind::sqlite) {
        auto t0 = clock_type::now();
        row("checkpoint_ok", st->checkpoint() ? 1 : 0);
        row("checkpoint_s", since(t0));
        row("bytes_after_checkpoint", static_cast<double>(store_bytes(k, dir)));
        t0 = clock_type::now();
        // VACUUM writes through the WAL: checkpoint again to see the file.
        row("vacuum_ok", st->vacuum() && st->checkpoint() ? 1 : 0);
        row("vacuum_s", since(t0));
        row("bytes_after_vacuum", static_cast<double>(store_bytes(k, dir)));
      }
      f.replica = {};
      st.reset();
      row("bytes_after_close", static_cast<double>(store_bytes(k, dir)));
      dice::known_tasks again;
      dice::forgotten_set again_forgotten;
      restart(k, dir, "forgotten", st, again, again_forgotten, out, param);
      st.reset();
      fs::remove_all(dir);
    }
}

} // namespace bench
