#include "journal/journal_frame.hpp"

#include <zlib.h>

namespace dice {

namespace {

std::uint32_t crc_of(std::string_view bytes) {
  auto crc = crc32(0L, Z_NULL, 0);
  return static_cast<std::uint32_t>(
    crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()),
          static_cast<uInt>(bytes.size())));
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_u32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i]))
         << (8 * i);
  return v;
}

} // namespace

void append_frame(std::string& out, std::string_view payload) {
  put_u32(out, static_cast<std::uint32_t>(payload.size()));
  put_u32(out, crc_of(payload));
  out.append(payload.data(), payload.size());
}

journal_scan scan_frames(std::string_view bytes) {
  journal_scan result;
  std::size_t at = 0;
  while (bytes.size() - at >= journal_frame_header_bytes) {
    auto size = get_u32(bytes, at);
    auto crc = get_u32(bytes, at + 4);
    auto body = at + journal_frame_header_bytes;
    if (size > journal_max_record_bytes || bytes.size() - body < size)
      break;
    auto payload = bytes.substr(body, size);
    if (crc_of(payload) != crc)
      break;
    result.records.push_back(payload);
    at = body + size;
  }
  result.valid_bytes = at;
  result.bad_tail_bytes = bytes.size() - at;
  return result;
}

} // namespace dice
