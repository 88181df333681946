// Submits under back-pressure (issue 17, item 5): ten concurrent POST
// /tasks on a 3-node cluster. Each answer is all or nothing: every id
// (201 replicated, 202 not yet) or none (429/503, nothing enqueued), so
// the cluster holds exactly the tasks whose ids were returned, runs them,
// and /stats answers meanwhile.
#include <atomic>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>
#include <httplib.h>

#include "cluster.hpp"

using namespace dice::test;

namespace {

struct submit_answer {
  int status = 0;
  std::size_t ids = 0;
};

std::uint64_t known_tasks(const nlohmann::json& stats) {
  return stats["tasks"]["total"].get<std::uint64_t>();
}

} // namespace

TEST_CASE("ten concurrent submits each enqueue all their tasks or none",
          "[process][queue][backlog]") {
  cluster c;
  // A small window, so that some submits may be refused while others wait
  // for their acknowledgements.
  std::vector<std::string> args = {"--submit-window", "2500", "--slots", "2"};
  auto s1 = c.make_spec("bp-1");
  s1.extra_args = args;
  auto& n1 = c.start(s1);
  for (auto id : {"bp-2", "bp-3"}) {
    auto s = c.make_spec(id);
    s.peers = {n1.spec().udp_addr()};
    s.extra_args = args;
    c.start(s);
  }
  REQUIRE(wait_until([&] { return n1.alive_count() == 3; }, millis(5000)));

  const std::size_t per_submit = 1000;
  std::mutex m;
  std::vector<submit_answer> answers;
  std::vector<std::thread> clients;
  for (int i = 0; i < 10; ++i)
    clients.emplace_back([&] {
      httplib::Client cli("127.0.0.1", n1.spec().http_port);
      cli.set_read_timeout(60);
      auto res = cli.Post("/tasks",
                          R"({"kind":"echo","payload":"","count":)"
                            + std::to_string(per_submit) + "}",
                          "application/json");
      submit_answer a;
      if (res) {
        a.status = res->status;
        auto body = nlohmann::json::parse(res->body, nullptr, false);
        if (body.is_object() && body.contains("ids"))
          a.ids = body["ids"].size();
      }
      std::lock_guard<std::mutex> lock(m);
      answers.push_back(a);
    });
  // /stats answers while the burst is taken in.
  auto during = http_get(n1.spec().http_port, "/stats", millis(5000));
  for (auto& t : clients)
    t.join();

  std::size_t returned = 0;
  for (auto& a : answers) {
    INFO("status " << a.status << ", ids " << a.ids);
    if (a.status == 201 || a.status == 202) {
      CHECK(a.ids == per_submit);
      returned += a.ids;
    } else {
      CHECK((a.status == 429 || a.status == 503));
      CHECK(a.ids == 0);
    }
  }
  CHECK(during.status == 200);
  CHECK(returned > 0);

  // Exactly the tasks with an id exist, and all of them end done.
  std::uint64_t known = 0, done = 0;
  wait_until([&] {
    auto s = n1.stats();
    if (!s)
      return false;
    known = known_tasks(*s);
    done = (*s)["tasks"]["done"].get<std::uint64_t>();
    return done >= returned;
  }, millis(45000), millis(250));
  INFO(c.logs());
  CHECK(known == returned);
  CHECK(done == returned);
}
