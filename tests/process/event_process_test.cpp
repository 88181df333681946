// Causal events across real dice-node processes: an event published in
// answer to another is delivered after it on every node, each event once,
// and `dice event watch` prints them in that order.
#include <catch2/catch.hpp>

#include "cluster.hpp"

using namespace dice::test;

namespace {

/// The data of the events of `topic` node `n` delivered, in order.
std::vector<std::string> delivered(node_process& n, const std::string& topic) {
  std::vector<std::string> out;
  auto e = get_json(n.spec().http_port, "/events?topic=" + topic);
  if (e)
    for (const auto& ev : (*e)["events"])
      out.push_back(ev["data"].get<std::string>());
  return out;
}

int publish(cluster& c, node_process& n, const std::string& topic,
            const std::string& data) {
  process p(DICE_CLI_BIN, {"--node", "http://" + loopback(n.spec().http_port),
                           "event", "publish", topic, data},
            c.dir().file("publish-" + data + ".log"));
  return p.wait_exit(millis(5000)).value_or(-1);
}

} // namespace

TEST_CASE("causal events: an answer is delivered after the event it answers, "
          "on every node, once", "[process][causal]") {
  cluster c;
  auto& a = c.start(c.make_spec("ev-1"));
  for (auto id : {"ev-2", "ev-3"}) {
    auto spec = c.make_spec(id);
    spec.peers = {a.spec().udp_addr()};
    c.start(spec);
  }
  REQUIRE(wait_until([&] {
    for (auto& n : c.nodes())
      if (n->alive_count() != 3)
        return false;
    return true;
  }, millis(10000)));
  auto watch_log = c.dir().file("watch.log");
  process watch(DICE_CLI_BIN, {"--node", "http://" + loopback(c[2].spec().http_port),
                               "event", "watch", "chat", "--count", "2"},
                watch_log);
  REQUIRE(publish(c, c[0], "chat", "question") == 0);
  // ev-2 answers only once it has the question.
  REQUIRE(wait_until([&] { return delivered(c[1], "chat").size() == 1; }, millis(5000)));
  REQUIRE(publish(c, c[1], "chat", "answer") == 0);
  REQUIRE(publish(c, c[2], "other", "noise") == 0);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("node " << c[i].id());
    REQUIRE(wait_until([&] { return delivered(c[i], "chat").size() == 2; }, millis(5000)));
    CHECK(delivered(c[i], "chat") == std::vector<std::string>{"question", "answer"});
    CHECK(delivered(c[i], "other") == std::vector<std::string>{"noise"});
  }
  REQUIRE(watch.wait_exit(millis(5000)) == 0);
  auto out = watch.log();
  auto q = out.find("ev-1#1 question");
  auto ans = out.find("ev-2#1 answer");
  CHECK(q != std::string::npos);
  CHECK(ans != std::string::npos);
  CHECK(q < ans);
  // A watch that resumes after the question's delivery index sees only the
  // answer.
  auto first = get_json(c[2].spec().http_port, "/events?topic=chat");
  REQUIRE(first);
  REQUIRE((*first)["events"].size() == 2);
  auto after = std::to_string((*first)["events"][0]["index"].get<std::uint64_t>());
  process resume(DICE_CLI_BIN, {"--node", "http://" + loopback(c[2].spec().http_port),
                                "event", "watch", "chat", "--since", after,
                                "--count", "1"},
                 c.dir().file("resume.log"));
  REQUIRE(resume.wait_exit(millis(5000)) == 0);
  CHECK(resume.log() == "ev-2#1 answer\n");
}
