#include <catch2/catch.hpp>

#include <string>

#include "journal/journal_frame.hpp"

using namespace dice;

TEST_CASE("journal frames: whole records come back in order, a tail torn "
          "at any byte or corrupted is cut, never taken for a record",
          "[journal]") {
  std::string file;
  append_frame(file, "first");
  append_frame(file, "");
  auto two = file.size();
  append_frame(file, std::string(300, 'x'));
  auto whole = scan_frames(file);
  REQUIRE(whole.records.size() == 3);
  CHECK(whole.records[0] == "first");
  CHECK(whole.records[1].empty());
  CHECK(whole.records[2] == std::string(300, 'x'));
  CHECK(whole.valid_bytes == file.size());
  CHECK(whole.bad_tail_bytes == 0);

  SECTION("torn: the last append stopped at every possible byte") {
    for (auto cut = two; cut < file.size(); ++cut) {
      auto torn = scan_frames(std::string_view(file).substr(0, cut));
      INFO("cut at " << cut);
      CHECK(torn.records.size() == 2);
      CHECK(torn.valid_bytes == two);
      CHECK(torn.bad_tail_bytes == cut - two);
    }
  }
  SECTION("corrupt: one flipped bit in the payload or the header") {
    for (auto at : {two + 3, two + 20, file.size() - 1}) {
      auto bad = file;
      bad[at] = static_cast<char>(bad[at] ^ 0x10);
      auto scan = scan_frames(bad);
      INFO("flipped byte " << at);
      CHECK(scan.records.size() == 2);
      CHECK(scan.bad_tail_bytes == file.size() - two);
    }
  }
  SECTION("a length field beyond any record is corruption, not a wait") {
    std::string bad(8, '\xff');
    auto scan = scan_frames(bad);
    CHECK(scan.records.empty());
    CHECK(scan.bad_tail_bytes == 8);
  }
}
