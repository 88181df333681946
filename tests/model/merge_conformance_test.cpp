// The C++ merge (known_tasks/task_state) against the spin model's merge
// (model/task_state.pml), so that neither drifts from the other unseen.
//
// model/merge_order.txt is what the model's merge gives on its abstract
// domain: each state and its rank, the number of states it beats (a total
// order: model/merge_laws.pml proves the ranks distinct, and the ctest
// "model: merge_order.txt ..." that the file is what the model prints).
// Here each abstract state becomes a wire::TaskState, and compare_states()
// and merge() must order every pair, and fold random sequences of
// updates, as the ranks do.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "known_tasks/task_state.hpp"

using namespace dice;

namespace {

struct model_state {
  int phase = 0, attempt = 0, claim = 0, started = 0, not_before = 0;
  int rank = 0;
};

// The model numbers phases by their rank within an attempt.
wire::TaskPhase wire_phase(int model_phase) {
  switch (model_phase) {
    case 1: return wire::READY;
    case 2: return wire::RUNNING;
    case 3: return wire::FAILED;
    case 4: return wire::EXPIRED;
    case 5: return wire::CANCELED;
    case 6: return wire::DONE;
    case 7: return wire::REMOVED;
  }
  FAIL("phase " << model_phase << " is not in the model's domain");
  return wire::READY;
}

// Claim c (1 + 2 * node + quality): the node's id, and its quality as the
// battery level; the other criteria are alike.
wire::TaskState to_wire(const model_state& m) {
  wire::TaskState s;
  s.set_phase(wire_phase(m.phase));
  s.set_attempt(m.attempt);
  if (m.claim != 0) {
    auto* c = s.mutable_claim();
    c->set_node_id("n" + std::to_string((m.claim - 1) / 2));
    c->set_battery((m.claim - 1) % 2 == 1 ? 100 : 50);
    c->set_dequeue_time_ms(1000);
  }
  if (m.started != 0)
    s.set_started_time_ms(1500);
  if (m.not_before != 0)
    s.set_not_before_ms(5000);
  return s;
}

std::vector<model_state> load_table() {
  std::string path = std::string(DICE_MODEL_DIR) + "/merge_order.txt";
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::vector<model_state> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    model_state m;
    fields >> m.phase >> m.attempt >> m.claim >> m.started >> m.not_before >> m.rank;
    INFO("line: " << line);
    REQUIRE(fields);
    rows.push_back(m);
  }
  return rows;
}

int sign(int x) {
  return (x > 0) - (x < 0);
}

bool same(const wire::TaskState& a, const wire::TaskState& b) {
  return a.SerializeAsString() == b.SerializeAsString();
}

} // namespace

TEST_CASE("the model's merge table covers its domain once, ranks distinct",
          "[model]") {
  auto rows = load_table();
  REQUIRE(rows.size() == 7u * 4 * 7 * 2 * 2);
  std::vector<int> ranks(rows.size(), 0);
  for (const auto& m : rows) {
    REQUIRE(m.rank >= 0);
    REQUIRE(m.rank < static_cast<int>(rows.size()));
    ++ranks[m.rank];
  }
  for (auto n : ranks)
    REQUIRE(n == 1);
}

TEST_CASE("compare_states and merge order every pair of model states as "
          "the model does",
          "[model]") {
  auto rows = load_table();
  std::vector<wire::TaskState> states;
  for (const auto& m : rows)
    states.push_back(to_wire(m));
  std::size_t checked = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      int code = sign(compare_states(states[i], states[j]));
      int model = sign(rows[i].rank - rows[j].rank);
      if (code != model) {
        INFO("model " << rows[i].rank << " vs " << rows[j].rank << ": "
             << states[i].ShortDebugString() << " | "
             << states[j].ShortDebugString());
        REQUIRE(code == model);
      }
      const auto& winner = rows[i].rank >= rows[j].rank ? states[i] : states[j];
      if (!same(merge(states[i], states[j]), winner)) {
        INFO(states[i].ShortDebugString() << " | " << states[j].ShortDebugString());
        REQUIRE(same(merge(states[i], states[j]), winner));
      }
      ++checked;
    }
  }
  CHECK(checked == rows.size() * rows.size());
}

TEST_CASE("random sequences of updates fold to the same state in the code "
          "and in the model",
          "[model]") {
  auto rows = load_table();
  std::uint64_t seed = 33;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> any_row(0, rows.size() - 1);
  std::uniform_int_distribution<int> length(1, 16);
  for (int run = 0; run < 3000; ++run) {
    std::vector<std::size_t> seq(length(rng));
    for (auto& r : seq)
      r = any_row(rng);
    // The model: the state held is the highest ranked so far.
    auto held = seq.front();
    auto state = to_wire(rows[held]);
    std::ostringstream trace;
    trace << rows[held].rank;
    for (std::size_t k = 1; k < seq.size(); ++k) {
      auto next = seq[k];
      trace << " " << rows[next].rank;
      bool model_changed = rows[next].rank > rows[held].rank;
      if (model_changed)
        held = next;
      bool code_changed = merge_into(state, to_wire(rows[next]));
      INFO("run " << run << ", ranks merged: " << trace.str());
      REQUIRE(code_changed == model_changed);
      REQUIRE(same(state, to_wire(rows[held])));
    }
  }
}
