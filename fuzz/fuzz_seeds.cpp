// Writes the seed corpus of every fuzz target: small valid inputs built by
// the same helpers the targets use, so the seeds follow the wire schema as
// it changes. Usage: dice_fuzz_seeds SEEDS_DIR CORPUS_DIR (the second gets
// an empty directory per target, where libFuzzer keeps what it finds).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fuzz_inputs.hpp"

namespace {

using namespace dice;
using namespace dice::fuzz;
namespace fs = std::filesystem;

using seeds = std::vector<std::string>;

// Datagrams a peer's bridge seals, with or without the cluster key.
seeds envelope_seeds() {
  seeds out;
  for (bool keyed : {true, false}) {
    bridge_state peer({cluster_id, sender_id, "127.0.0.2:7400", 1},
                      keyed ? cluster_key : std::string{});
    for (auto& body : sample_bodies())
      if (auto d = peer.seal(body, 1'700'000'000'000))
        out.push_back(*d);
  }
  // Three datagrams in one input, the last a replay of the first.
  out.push_back(join_datagrams({out[0], out[1], out[0]}));
  return out;
}

// Message bytes, for the target to sign.
seeds signed_seeds() {
  seeds out;
  std::uint64_t seq = 1;
  for (auto& body : sample_bodies())
    out.push_back(with_header(body, seq++).SerializeAsString());
  out.push_back(join_datagrams({out[3], out[4], out[3]}));
  return out;
}

// Bundle size (2 bytes), datagram limit (1 byte), then a wire::Bundle.
seeds bundle_seeds() {
  std::vector<wire::Message> bodies = sample_bodies();
  bodies.pop_back(); // the sample bundle: a part is never a bundle
  auto bundle_of = [&](std::size_t from, std::size_t n) {
    wire::Bundle b;
    for (std::size_t i = from; i < from + n && i < bodies.size(); ++i)
      *b.add_parts() = bodies[i];
    return b.SerializeAsString();
  };
  return {std::string("\x05\x78\xff", 3) + bundle_of(0, bodies.size()),
          std::string("\x00\xc8\x10", 3) + bundle_of(0, bodies.size()),
          std::string("\x00\x00\xff", 3) + bundle_of(3, 4),
          std::string("\x01\x00\x02", 3) + bundle_of(9, 3)};
}

seeds submit_seeds() {
  return {R"({"kind": "echo", "payload": "hello"})",
          R"({"kind": "sleep", "payload": 250, "priority": -3, "count": 10})",
          R"({"kind": "shell", "payload": "ls -l", "priority": 1000000})",
          R"({"kind": "cpu", "count": 1, "extra": null})",
          R"({"kind": "echo", "payload": "\u00e9\ud83c\udfb2"})", R"([1, 2])"};
}

seeds lock_seeds() {
  return {"", "{}", R"({"wait_ms": 0})",
          R"({"token": "a-1-2", "wait_ms": 10000, "lease_ms": 600000})",
          R"({"lease_ms": 1000, "wait_ms": 250})", R"({"extra": 1})",
          R"({"wait_ms": 1.5})", R"([])"};
}

seeds event_seeds() {
  return {R"({"topic": "builds", "data": "done"})",
          R"({"topic": "a.b-c_d", "data": ""})",
          R"({"topic": "", "data": "x"})", R"({"topic": "t", "data": 5})",
          R"({"topic": "t", "data": "\u00e9\ud83c\udfb2"})", R"("t")"};
}

seeds evaluation_seeds() {
  return {R"({"url": "https://example.org/p.git"})",
          R"({"url": "/srv/p", "name": "p", "runner": "pytest", "split": "test", "timeout": 60, "reruns": 2})",
          R"({"url": "x", "runner": "cmd", "modules": ["make a", "make b"]})",
          R"({"url": "x", "timeout": "30", "reruns": "1"})",
          R"({"url": "x", "modules": "[\"m\"]"})", R"({"name": "no url"})",
          R"({"url": "x", "split": "list"})", R"(null)"};
}

seeds query_seeds() {
  return {"ready", "running", "done", "t1", "t1,t2,,t3,", ",", ""};
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SEEDS_DIR CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::map<std::string, seeds> all = {
    {"envelope_fuzz", envelope_seeds()},
    {"signed_envelope_fuzz", signed_seeds()},
    {"bundle_fuzz", bundle_seeds()},
    {"submit_json_fuzz", submit_seeds()},
    {"task_query_fuzz", query_seeds()},
    {"lock_json_fuzz", lock_seeds()},
    {"event_json_fuzz", event_seeds()},
    {"evaluation_json_fuzz", evaluation_seeds()},
  };
  for (const auto& [target, inputs] : all) {
    auto dir = fs::path(argv[1]) / target;
    fs::create_directories(dir);
    fs::create_directories(fs::path(argv[2]) / target);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      std::ofstream(dir / ("seed-" + std::to_string(i)), std::ios::binary)
        << inputs[i];
    std::printf("%s: %zu seeds in %s\n", target.c_str(), inputs.size(),
                dir.c_str());
  }
  return 0;
}
