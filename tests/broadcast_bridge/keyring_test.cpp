#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "broadcast_bridge/keyring.hpp"
#include "broadcast_bridge/keyring_file.hpp"

using namespace dice;

namespace {

const std::string k1 = "the first cluster key";
const std::string k2 = "the second cluster key";
const std::string k3 = "a third key, never installed";

std::string temp_dir() {
  char tmpl[] = "/tmp/dice-keyring-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

} // namespace

TEST_CASE("a key id is 8 hex digits of a hash, the same for the same key",
          "[keyring]") {
  auto id = keyring::id_of(k1);
  CHECK(id.size() == 8);
  CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(keyring::id_of(k1) == id);
  CHECK(keyring::id_of(k2) != id);
  CHECK(keyring::id_hex(keyring::id_bytes(id)) == id);
  CHECK(keyring::id_bytes("not an id").empty());
}

TEST_CASE("a keyring refuses misuse with a reason and changes nothing",
          "[keyring]") {
  keyring r(k1);
  auto id1 = keyring::id_of(k1), id2 = keyring::id_of(k2);
  CHECK(r.primary_id() == id1);
  CHECK(r.primary_key() == k1);

  auto why = r.install("ten bytes!");
  CHECK(why.find("at least 16 bytes") != std::string::npos);
  CHECK(r.size() == 1);

  CHECK(r.install(k2).empty());
  CHECK(r.install(k2).empty()); // again: nothing changes
  CHECK(r.size() == 2);
  CHECK(r.primary_id() == id1); // installing does not make it sign

  CHECK(r.use("0badc0de").find("no key 0badc0de") != std::string::npos);
  CHECK(r.primary_id() == id1);
  CHECK(r.remove(id1).find("primary") != std::string::npos);
  CHECK(r.remove("0badc0de").find("no key") != std::string::npos);
  CHECK(r.size() == 2);

  CHECK(r.use(id2).empty());
  CHECK(r.remove(id1).empty());
  CHECK(r.ids() == std::vector<std::string>{id2});
  CHECK(r.primary_key() == k2);
}

TEST_CASE("a keyring holds a bounded number of keys", "[keyring]") {
  keyring r;
  for (std::size_t i = 0; i < keyring::max_keys; ++i)
    REQUIRE(r.install("cluster key number " + std::to_string(i)).empty());
  CHECK(r.primary_id() == keyring::id_of("cluster key number 0")); // the first
  CHECK(r.install("one cluster key too many").find("remove one") != std::string::npos);
  CHECK(r.size() == keyring::max_keys);
}

TEST_CASE("a keyring signs with its primary and accepts any key it holds",
          "[keyring]") {
  keyring a(k1), b(k1);
  REQUIRE(b.install(k2).empty());
  auto s = a.sign("data");
  CHECK(s.id_bytes == keyring::id_bytes(keyring::id_of(k1)));
  auto v = b.verify(s.id_bytes, "data", s.tag);
  CHECK(v.ok);
  CHECK(v.id == keyring::id_of(k1));
  CHECK_FALSE(b.verify(s.id_bytes, "other data", s.tag).ok);

  // An older sender names no key: every key is tried.
  keyring old(k2);
  auto t = old.sign("data");
  auto w = b.verify("", "data", t.tag);
  CHECK(w.ok);
  CHECK(w.id == keyring::id_of(k2));
  CHECK_FALSE(b.verify("", "data", "forged").ok);

  // A key this keyring lacks: named as unknown.
  auto u = b.verify(keyring(k3).sign("data").id_bytes, "data",
                    keyring(k3).sign("data").tag);
  CHECK_FALSE(u.ok);
  CHECK(u.unknown_id);
  CHECK(u.id == keyring::id_of(k3));

  // No key: no authentication.
  CHECK(keyring().verify("", "data", "").ok);
  CHECK(keyring().sign("data").tag.empty());
}

TEST_CASE("base64 round trips keys of every length", "[keyring]") {
  for (std::size_t n = 0; n < 40; ++n) {
    std::string bytes;
    for (std::size_t i = 0; i < n; ++i)
      bytes += static_cast<char>((i * 37 + n) & 0xff);
    auto back = base64_decode(base64_encode(bytes));
    if (n == 0) {
      CHECK_FALSE(back);
      continue;
    }
    REQUIRE(back);
    CHECK(*back == bytes);
  }
  CHECK_FALSE(base64_decode("not base64!"));
  CHECK_FALSE(base64_decode("abc"));
}

TEST_CASE("the keyring file round trips and refuses malformed contents",
          "[keyring]") {
  keyring r(k1);
  REQUIRE(r.install(k2).empty());
  REQUIRE(r.use(keyring::id_of(k2)).empty());
  std::string err;
  auto back = keyring_from_json(keyring_to_json(r), err);
  REQUIRE(back);
  CHECK(*back == r);
  // Never the key in the clear.
  CHECK(keyring_to_json(r).find(k1) == std::string::npos);

  for (auto bad : {"", "[]", "{}", R"({"keys": [], "primary": ""})",
                   R"({"keys": ["!!!!"], "primary": "x"})",
                   R"({"keys": ["c2hvcnQ="], "primary": "x"})", // "short"
                   R"({"keys": ["dGhlIGZpcnN0IGNsdXN0ZXIga2V5"]})"}) {
    err.clear();
    CHECK_FALSE(keyring_from_json(bad, err));
    CHECK_FALSE(err.empty());
  }
  err.clear();
  CHECK_FALSE(keyring_from_json(R"({"keys": ["dGhlIGZpcnN0IGNsdXN0ZXIga2V5"],
                                    "primary": "0badc0de"})", err));
  CHECK(err.find("primary") != std::string::npos);
}

TEST_CASE("the keyring file is written atomically with mode 0600", "[keyring]") {
  auto dir = temp_dir();
  auto path = dir + "/keyring";
  std::string err;
  CHECK_FALSE(load_keyring(path, err)); // none yet: no error
  CHECK(err.empty());

  keyring r(k1);
  REQUIRE(save_keyring(path, r, err));
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  auto back = load_keyring(path, err);
  REQUIRE(back);
  CHECK(*back == r);

  std::ofstream(path) << "{ not json";
  err.clear();
  CHECK_FALSE(load_keyring(path, err));
  CHECK(err.find("malformed") != std::string::npos);
  CHECK(err.find(path) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a raw key file is read as --cluster-key-file reads it", "[keyring]") {
  auto dir = temp_dir();
  std::ofstream(dir + "/good") << k1 << "\n";
  std::ofstream(dir + "/short") << "ten bytes!\n";
  std::string err;
  CHECK(read_key_file(dir + "/good", err) == k1);
  CHECK(read_key_file(dir + "/short", err).empty());
  CHECK(err.find("shorter than 16 bytes") != std::string::npos);
  err.clear();
  CHECK(read_key_file(dir + "/none", err).empty());
  CHECK(err.find("cannot read") != std::string::npos);
  std::filesystem::remove_all(dir);
}
