#include "http_api/request_framer.hpp"

#include <cctype>
#include <cstdint>

namespace dice {

namespace {

constexpr std::string_view crlf = "\r\n";
constexpr std::string_view blank_line = "\r\n\r\n";

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i]))
        != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// A decimal or hexadecimal count without sign or spaces; false if it is
/// empty, has another character or exceeds `max`.
bool parse_count(std::string_view s, int base, std::uint64_t max, std::uint64_t& out) {
  if (s.empty())
    return false;
  std::uint64_t v = 0;
  for (char c : s) {
    int d = std::isdigit(static_cast<unsigned char>(c))
              ? c - '0'
              : (base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                   ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                   : -1);
    if (d < 0)
      return false;
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    if (v > max)
      return false;
  }
  out = v;
  return true;
}

struct head_fields {
  bool chunked = false;
  bool other_coding = false; // a transfer coding the room does not frame
  bool has_length = false;
  bool bad_length = false;   // unparsable, or two that differ
  std::uint64_t length = 0;
};

head_fields read_fields(std::string_view head) {
  head_fields f;
  auto line_end = head.find(crlf); // the request line has no field
  while (line_end != std::string_view::npos && line_end + 2 < head.size()) {
    auto start = line_end + 2;
    line_end = head.find(crlf, start);
    auto line = head.substr(start, line_end == std::string_view::npos
                                     ? std::string_view::npos
                                     : line_end - start);
    auto colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    auto name = line.substr(0, colon);
    auto value = trim(line.substr(colon + 1));
    if (same_name(name, "Content-Length")) {
      std::uint64_t v = 0;
      if (!parse_count(value, 10, UINT64_MAX / 16, v) || (f.has_length && v != f.length))
        f.bad_length = true;
      f.has_length = true;
      f.length = v;
    } else if (same_name(name, "Transfer-Encoding")) {
      if (same_name(value, "chunked"))
        f.chunked = true;
      else
        f.other_coding = true;
    }
  }
  return f;
}

/// The end of a chunked body that starts at `pos`, or `incomplete`, or
/// `head_only` once it grows past the cap or a chunk size is not one.
request_frame frame_chunks(std::string_view bytes, std::size_t pos,
                           const framing_limits& limits) {
  const auto start = pos;
  for (;;) {
    if (pos - start > limits.body_cap)
      return {request_frame::head_only, start};
    auto line_end = bytes.find(crlf, pos);
    if (line_end == std::string_view::npos)
      return bytes.size() - pos > 64 ? request_frame{request_frame::head_only, start}
                                     : request_frame{};
    auto size_text = bytes.substr(pos, line_end - pos);
    size_text = trim(size_text.substr(0, size_text.find(';'))); // no extensions
    std::uint64_t size = 0;
    if (!parse_count(size_text, 16, limits.body_cap, size))
      return {request_frame::head_only, start};
    pos = line_end + 2;
    if (size == 0) {
      // Trailer fields, if any, end with a blank line like the head.
      if (bytes.substr(pos, 2) == crlf)
        return {request_frame::whole, pos + 2};
      auto end = bytes.find(blank_line, pos);
      if (end == std::string_view::npos)
        return bytes.size() - pos > limits.head_max
                 ? request_frame{request_frame::head_only, start}
                 : request_frame{};
      return {request_frame::whole, end + 4};
    }
    if (bytes.size() < pos + size + 2)
      return pos + size - start > limits.body_cap
               ? request_frame{request_frame::head_only, start}
               : request_frame{};
    pos += size + 2; // the data and its CRLF
  }
}

} // namespace

request_frame frame_request(std::string_view bytes, const framing_limits& limits) {
  auto head_end = bytes.substr(0, limits.head_max).find(blank_line);
  if (head_end == std::string_view::npos)
    return bytes.size() >= limits.head_max
             ? request_frame{request_frame::head_only, bytes.size()}
             : request_frame{};
  const auto body = head_end + 4;
  auto f = read_fields(bytes.substr(0, body));
  if (f.other_coding || f.bad_length || (f.chunked && f.has_length))
    return {request_frame::head_only, body};
  if (f.chunked)
    return frame_chunks(bytes, body, limits);
  if (!f.has_length || f.length == 0)
    return {request_frame::whole, body};
  if (f.length > limits.body_cap)
    return {request_frame::head_only, body};
  if (bytes.size() < body + f.length)
    return {};
  return {request_frame::whole, body + static_cast<std::size_t>(f.length)};
}

} // namespace dice
