// bench_storage: the replica's journal beside a SQLite (WAL) prototype on
// the same work: append throughput, restart time and bytes, disk use after
// forgetting, and what survives kill -9, a torn tail and a full disk.
// See bench/storage/run.sh and bench/README.md.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "scenarios.hpp"

namespace {

std::vector<std::uint64_t> numbers(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(std::stoull(item));
  return out;
}

int usage() {
  std::cerr << "usage: bench_storage --csv FILE [--only phys,append,scale,kill,torn,full]\n"
               "  [--per-flush 1,8,64] [--append-tasks 100000] [--append-seconds 5]\n"
               "  [--rounds 3] [--held 100000,1000000] [--kills 10] [--seed 1]\n";
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  bench::settings s;
  std::string csv, only = "phys,append,scale,kill,torn,full";
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (i + 1 >= argc)
        return usage();
      std::string v = argv[++i];
      if (a == "--csv") csv = v;
      else if (a == "--only") only = v;
      else if (a == "--per-flush") {
        s.per_flush.clear();
        for (auto n : numbers(v))
          s.per_flush.push_back(n);
      } else if (a == "--append-tasks") s.append_tasks = std::stoull(v);
      else if (a == "--append-seconds") s.append_seconds = std::stod(v);
      else if (a == "--rounds") s.rounds = std::stoi(v);
      else if (a == "--held") s.held = numbers(v);
      else if (a == "--kills") s.kills = std::stoi(v);
      else if (a == "--seed") s.seed = std::stoull(v);
      else return usage();
    }
  } catch (const std::exception&) {
    return usage();
  }
  if (csv.empty())
    return usage();
  char tmpl[] = "/tmp/bench-storage-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  s.dir = tmpl;
  int rc = 0;
  try {
    bench::report out(csv);
    auto want = [&](const char* name) {
      return ("," + only + ",").find(std::string(",") + name + ",") != std::string::npos;
    };
    if (want("phys")) bench::physical(s, out);
    if (want("append")) bench::append(s, out);
    if (want("scale")) bench::scale(s, out);
    if (want("kill")) bench::kill9(s, out);
    if (want("torn")) bench::torn_tail(s, out);
    if (want("full")) bench::full_disk(s, out);
  } catch (const std::exception& e) {
    std::cerr << "bench_storage: " << e.what() << "\n";
    rc = 1;
  }
  std::filesystem::remove_all(s.dir);
  return rc;
}
