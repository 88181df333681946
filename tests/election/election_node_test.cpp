// election_node: what the election actor does, without CAF. Three nodes
// wired by address (as the bridge would) elect, report the coordinator once,
// re-elect when it dies, and shrug off bad datagrams.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "election/election_node.hpp"

using namespace dice;

namespace {

struct wired {
  std::map<std::string, std::unique_ptr<election_node>> nodes; // by id
  std::map<std::string, std::string> id_at;                   // addr -> id
  std::set<std::string> down;
  millis now = 1000;
  std::size_t broadcasts = 0, sends = 0;

  explicit wired(const std::string& algorithm,
                 std::vector<std::string> ids = {"n1", "n2", "n3"}) {
    for (auto& id : ids) {
      nodes[id] = std::make_unique<election_node>(algorithm, id,
                                                  election_config{});
      id_at["127.0.0.1:" + id] = id;
    }
  }
  peer_change change(const std::string& id, peer_state to) {
    peer_change c;
    c.id = id;
    c.addr = "127.0.0.1:" + id;
    c.to = to;
    return c;
  }
  /// Every node learns that every other live node is alive.
  void meet() {
    for (auto& [id, n] : nodes)
      for (auto& [other, m] : nodes)
        if (!down.count(id) && !down.count(other))
          n->on_peer(change(other, peer_state::alive), now);
  }
  void deliver(const std::string& from, const std::string& to,
               wire::Message m) {
    if (down.count(to) || down.count(from))
      return;
    m.set_sender_id(from);
    m.set_sender_addr("127.0.0.1:" + from);
    nodes.at(to)->on_wire(m, now);
  }
  void flush() {
    for (int round = 0; round < 1000; ++round) {
      bool any = false;
      for (auto& [id, n] : nodes) {
        for (auto& d : n->take_datagrams()) {
          any = true;
          if (d.to) {
            ++sends;
            deliver(id, *d.to, d.message);
          } else {
            ++broadcasts;
            for (auto& [other, m] : nodes)
              if (other != id)
                deliver(id, other, d.message);
          }
        }
      }
      if (!any)
        return;
    }
  }
  void run_for(millis ms) {
    for (millis end = now + ms; now < end; now += 5) {
      for (auto& [id, n] : nodes)
        if (!down.count(id))
          n->tick(now);
      flush();
    }
  }
};

} // namespace

TEST_CASE("election node: bully over addressed sends elects the highest id "
          "and reports it once",
          "[election][election_node]") {
  wired w("bully");
  w.meet();
  w.flush();
  w.run_for(500);
  for (auto& [id, n] : w.nodes) {
    CAPTURE(id);
    CHECK(n->acting_coordinator() == "n3");
    CHECK(n->take_coordinator_change() == std::optional<std::string>("n3"));
    CHECK(n->take_coordinator_change() == std::nullopt); // reported once
  }
  CHECK(w.sends > 0); // bully talks point to point
  CHECK(w.nodes.at("n3")->view().members
        == std::vector<std::string>{"n1", "n2"});
}

TEST_CASE("election node: a dead coordinator is replaced by the next highest",
          "[election][election_node]") {
  for (auto algorithm : election_algorithms()) {
    CAPTURE(algorithm);
    wired w(algorithm);
    w.meet();
    w.run_for(2000);
    REQUIRE(w.nodes.at("n1")->acting_coordinator() == "n3");
    w.down.insert("n3");
    for (auto id : {"n1", "n2"})
      w.nodes.at(id)->on_peer(w.change("n3", peer_state::dead), w.now);
    w.flush();
    w.run_for(3000);
    for (auto id : {"n1", "n2"}) {
      CAPTURE(id);
      CHECK(w.nodes.at(id)->acting_coordinator() == "n2");
    }
  }
}

TEST_CASE("election node: alone, a node elects itself after its first tick",
          "[election][election_node]") {
  election_node n("bully", "solo", election_config{});
  CHECK(n.acting_coordinator().empty());
  n.tick(0);
  n.tick(1000);
  CHECK(n.acting_coordinator() == "solo");
  CHECK(n.view().state == "normal");
}

TEST_CASE("election node: malformed datagrams are counted, not fatal, and a "
          "peer membership never named is answered by id",
          "[election][election_node]") {
  election_node n("bully", "n1", election_config{});
  wire::Message no_body;
  no_body.set_sender_id("n2");
  n.on_wire(no_body, 0);
  wire::Message no_sender;
  no_sender.mutable_election()->set_algorithm("bully");
  no_sender.mutable_election()->set_kind("AYUp");
  n.on_wire(no_sender, 0);
  wire::Message other_algorithm;
  other_algorithm.set_sender_id("n2");
  other_algorithm.mutable_election()->set_algorithm("ring");
  n.on_wire(other_algorithm, 0);
  auto v = n.view();
  CHECK(v.malformed == 2);
  CHECK(v.other_algorithm == 1);
  CHECK(v.ignored == 0);
  // An AYUp from a peer membership never told us about: the answer goes
  // to its id (the bridge resolves it from the AYUp's datagram, or counts
  // it as unaddressed).
  wire::Message ayup;
  ayup.set_sender_id("n9");
  ayup.mutable_election()->set_algorithm("bully");
  ayup.mutable_election()->set_kind("AYUp");
  n.on_wire(ayup, 0);
  auto out = n.take_datagrams();
  REQUIRE(out.size() == 1);
  CHECK(out.front().to == std::optional<std::string>("n9"));
  CHECK(out.front().message.election().kind() == "AYUAnswer");
}

TEST_CASE("election node: a peer running another algorithm is named once, "
          "counted per message, and does not sway the election",
          "[election][election_node]") {
  election_node n("bully", "n1", election_config{});
  auto from = [](const std::string& peer, const std::string& algorithm) {
    wire::Message m;
    m.set_sender_id(peer);
    m.set_sender_addr("127.0.0.1:" + peer);
    m.mutable_election()->set_algorithm(algorithm);
    m.mutable_election()->set_kind("SetCoord");
    m.mutable_election()->set_candidate(peer);
    return m;
  };
  n.on_wire(from("n9", "ring"), 0);
  n.on_wire(from("n9", "ring"), 1);
  n.on_wire(from("n8", "echo"), 2);
  auto news = n.take_mismatches();
  REQUIRE(news.size() == 2);
  CHECK(news[0].peer == "n9");
  CHECK(news[0].algorithm == "ring");
  CHECK(news[1].peer == "n8");
  CHECK(n.take_mismatches().empty()); // told once
  n.on_wire(from("n9", "hs"), 3);     // restarted with yet another one
  news = n.take_mismatches();
  REQUIRE(news.size() == 1);
  CHECK(news[0].algorithm == "hs");
  auto v = n.view();
  CHECK(v.other_algorithm == 4);
  CHECK(v.mismatched == std::map<std::string, std::string>{{"n8", "echo"}, {"n9", "hs"}});
  n.tick(10);
  n.tick(5000);
  CHECK(n.acting_coordinator() == "n1"); // n9's claim to lead was not heard
}
