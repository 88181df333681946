#pragma once
// Where one HTTP/1.1 request ends in the bytes a connection has sent, so
// the waiting room can read a whole request before a server thread takes
// it: a client that trickles bytes then costs a buffer, not a thread.
// Only the framing is decided here; cpp-httplib still parses and judges
// the request (a malformed one is handed over for it to answer 400).
#include <cstddef>
#include <string_view>

namespace dice {

struct request_frame {
  enum kind_t {
    incomplete, // more bytes are needed to know
    whole,      // the first `length` bytes are the whole request
    head_only,  // hand it over now and let the thread read the rest: the
                // head or body is larger than the room buffers, or framed
                // in a way only httplib should judge
  };
  kind_t kind = incomplete;
  std::size_t length = 0;
};

struct framing_limits {
  std::size_t head_max;  // request line and headers, with the blank line
  std::size_t body_cap;  // a larger body is read by the server thread
};

request_frame frame_request(std::string_view bytes, const framing_limits& limits);

} // namespace dice
