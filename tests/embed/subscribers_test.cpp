#include <catch2/catch.hpp>

#include <string>

#include "embed/subscribers.hpp"

using namespace dice::embed;

TEST_CASE("a message goes to the subscribers of its topic and of every topic, each once", "[embed]") {
  subscribers<std::string> subs;
  subs.add(1, "greetings", "host-1");
  subs.add(2, "", "host-2");           // every topic
  subs.add(3, "ledger", "host-3");
  subs.add(2, "greetings", "host-2b"); // owner 2 again: still told once
  CHECK(subs.match("greetings") == std::vector<std::string>{"host-1", "host-2"});
  CHECK(subs.match("ledger") == std::vector<std::string>{"host-2", "host-3"});
  CHECK(subs.match("other") == std::vector<std::string>{"host-2"});
  subs.remove(2, "");
  CHECK(subs.match("greetings") == std::vector<std::string>{"host-1", "host-2b"});
  CHECK(subs.match("other").empty());
}

TEST_CASE("an owner that stopped hears nothing more", "[embed]") {
  subscribers<int> subs;
  subs.add(5, "a", 50);
  subs.add(5, "", 51);
  subs.add(6, "a", 60);
  subs.drop(5);
  CHECK(subs.size() == 1);
  CHECK(subs.match("a") == std::vector<int>{60});
}
