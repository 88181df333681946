#include <catch2/catch.hpp>

#include "tester/blob_auth.hpp"

using namespace dice;

TEST_CASE("a blob request's tag proves the cluster key for that method and blob",
          "[tester][blobs]") {
  std::string key = "a cluster key of some length";
  std::string sha(64, 'a'), other(64, 'b');
  auto tag = blob_auth(key, "GET", sha);
  CHECK(tag.size() == 64); // hex of an HMAC-SHA256
  CHECK(tag == blob_auth(key, "GET", sha));
  CHECK(blob_auth_ok(key, "GET", sha, tag));
  CHECK_FALSE(blob_auth_ok(key, "PUT", sha, tag));     // another method
  CHECK_FALSE(blob_auth_ok(key, "GET", other, tag));   // another blob
  CHECK_FALSE(blob_auth_ok("another cluster key!", "GET", sha, tag));
  CHECK_FALSE(blob_auth_ok(key, "GET", sha, ""));
  CHECK_FALSE(blob_auth_ok(key, "GET", sha, tag.substr(0, 63) + "0" == tag
                                              ? tag.substr(0, 63) + "1"
                                              : tag.substr(0, 63) + "0"));
  // Without a key blobs are as open as the datagrams.
  CHECK(blob_auth("", "GET", sha).empty());
  CHECK(blob_auth_ok("", "GET", sha, ""));
}
