#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tester/blob_store.hpp"
#include "tester/sha256.hpp"
#include "tester_temp.hpp"

using namespace dice;

TEST_CASE("a blob is stored under the hash of its bytes, checked", "[tester][blobs]") {
  test::scratch_dir d;
  blob_store store(d.path + "/blobs", 1000);
  std::string err;
  auto sha = store.put("hello", err);
  CHECK(sha == sha256_hex("hello"));
  CHECK(sha == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  CHECK(store.has(sha));
  CHECK_FALSE(store.use(sha).empty());

  SECTION("a file whose bytes do not hash to its name is refused") {
    auto tmp = store.temp_path();
    std::ofstream(tmp) << "not hello";
    CHECK_FALSE(store.adopt(tmp, sha256_hex("other"), err));
    CHECK_THAT(err, Catch::Matchers::Contains("does not hash"));
    CHECK_FALSE(std::filesystem::exists(tmp));
    CHECK(store.stats().rejected == 1);
  }
  SECTION("bytes announced under another hash are refused, not stored") {
    CHECK(store.put("not hello", err, sha256_hex("other")).empty());
    CHECK_FALSE(store.has(sha256_hex("not hello")));
  }
  SECTION("a name that is not a hash is refused") {
    auto tmp = store.temp_path();
    std::ofstream(tmp) << "x";
    CHECK_FALSE(store.adopt(tmp, "../../etc/passwd", err));
  }
}

TEST_CASE("the blob store evicts the least recently used beyond its cap",
          "[tester][blobs]") {
  test::scratch_dir d;
  blob_store store(d.path + "/blobs", 25);
  std::string err;
  auto a = store.put(std::string(10, 'a'), err);
  auto b = store.put(std::string(10, 'b'), err);
  REQUIRE(store.use(a) != ""); // a is now more recent than b
  auto c = store.put(std::string(10, 'c'), err);
  CHECK(store.has(a));
  CHECK_FALSE(store.has(b));
  CHECK(store.has(c));
  CHECK(store.stats().evicted == 1);
  CHECK(store.stats().bytes == 20);
  SECTION("a blob larger than the cap is refused, nothing evicted") {
    CHECK(store.put(std::string(26, 'x'), err).empty());
    CHECK_THAT(err, Catch::Matchers::Contains("larger than"));
    CHECK(store.has(a));
    CHECK(store.has(c));
  }
  SECTION("a restarted store adopts what is on disk") {
    blob_store again(d.path + "/blobs", 25);
    CHECK(again.has(a));
    CHECK(again.has(c));
    CHECK(again.stats().bytes == 20);
  }
}

TEST_CASE("a pinned blob is not evicted until its pin is released", "[tester][blobs]") {
  test::scratch_dir d;
  blob_store store(d.path + "/blobs", 25);
  std::string err;
  auto a = store.put(std::string(10, 'a'), err);
  auto b = store.put(std::string(10, 'b'), err);
  {
    auto pin = store.pin(a); // a is being unpacked, by two slots
    auto held = store.pin(a);
    REQUIRE(pin.path() == store.use(a));
    store.use(b);            // a is the least recently used
    auto c = store.put(std::string(10, 'c'), err);
    CHECK(store.has(a));     // pinned: b goes instead
    CHECK_FALSE(store.has(b));
    CHECK(store.has(c));
    CHECK(store.pin(b).path().empty());
  }
  store.use(store.put(std::string(10, 'c'), err));
  store.put(std::string(10, 'd'), err);
  CHECK_FALSE(store.has(a)); // released: evicted as the oldest
}
