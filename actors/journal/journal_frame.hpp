#pragma once
// The journal's record framing: each record is its length, a CRC-32 of its
// bytes, then the bytes. A crash mid-append leaves a torn last record; a
// disk fault leaves one whose CRC no longer matches. Scanning stops at the
// first such record: what follows it cannot be trusted to be whole.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dice {

/// A record larger than this is taken for a corrupt length field.
constexpr std::size_t journal_max_record_bytes = 64 * 1024 * 1024;
constexpr std::size_t journal_frame_header_bytes = 8;

/// Appends one framed record holding `payload` to `out`.
void append_frame(std::string& out, std::string_view payload);

struct journal_scan {
  std::vector<std::string_view> records; // views into the scanned bytes
  std::size_t valid_bytes = 0;           // the prefix of whole records
  /// Bytes after the last whole record (a torn or corrupt tail).
  std::size_t bad_tail_bytes = 0;
};

/// The whole records at the start of `bytes`, up to the first torn or
/// corrupt one.
journal_scan scan_frames(std::string_view bytes);

} // namespace dice
