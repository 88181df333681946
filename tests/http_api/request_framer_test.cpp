// Where a request ends, as the waiting room decides it before a server
// thread takes the connection: a whole request, the need for more bytes,
// or a head handed over for httplib to judge.
#include <catch2/catch.hpp>

#include <string>

#include "http_api/request_framer.hpp"

using namespace dice;

namespace {

const framing_limits limits{1024, 4096};

request_frame frame(const std::string& bytes) {
  return frame_request(bytes, limits);
}

} // namespace

TEST_CASE("a request without a body is whole at its blank line", "[http][framing]") {
  const std::string get = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
  CHECK(frame(get).kind == request_frame::whole);
  CHECK(frame(get).length == get.size());
  // Every shorter prefix, down to one byte a second, needs more.
  for (std::size_t n = 0; n < get.size(); ++n)
    CHECK(frame(get.substr(0, n)).kind == request_frame::incomplete);
  // A pipelined second request does not belong to the first.
  CHECK(frame(get + "GET /stats HTTP/1.1\r\n").length == get.size());
}

TEST_CASE("a body announced by Content-Length is waited for", "[http][framing]") {
  const std::string head = "POST /tasks HTTP/1.1\r\nhost: x\r\ncontent-LENGTH:  5 \r\n\r\n";
  CHECK(frame(head).kind == request_frame::incomplete);
  CHECK(frame(head + "{\"k\"").kind == request_frame::incomplete);
  auto f = frame(head + "{\"k\"}GET");
  CHECK(f.kind == request_frame::whole);
  CHECK(f.length == head.size() + 5);
  CHECK(frame("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").kind == request_frame::whole);
}

TEST_CASE("a chunked body is whole at its last chunk and trailer", "[http][framing]") {
  const std::string head = "POST /tasks HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string body = "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n";
  CHECK(frame(head + body).kind == request_frame::whole);
  CHECK(frame(head + body + "GET").length == head.size() + body.size());
  for (std::size_t n = 0; n < body.size(); ++n)
    CHECK(frame(head + body.substr(0, n)).kind == request_frame::incomplete);
  const std::string trailer = "0\r\nX-Sum: 1\r\n\r\n";
  CHECK(frame(head + trailer).length == head.size() + trailer.size());
}

TEST_CASE("what the room does not buffer or cannot frame goes to httplib at once",
          "[http][framing]") {
  // A body beyond the cap is read by the server thread.
  auto big = frame("POST / HTTP/1.1\r\nContent-Length: 4097\r\n\r\nab");
  CHECK(big.kind == request_frame::head_only);
  // A head that never ends within the limit (httplib answers 400 or 414).
  CHECK(frame("GET /" + std::string(2000, 'a')).kind == request_frame::head_only);
  // Framings httplib must refuse or judge: bad, conflicting or doubled.
  for (const char* h : {"Content-Length: -1\r\n", "Content-Length: 1x\r\n",
                        "Content-Length: 99999999999999999999999\r\n",
                        "Content-Length: 1\r\nContent-Length: 2\r\n",
                        "Transfer-Encoding: gzip\r\n",
                        "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n"})
    CHECK(frame(std::string("POST / HTTP/1.1\r\n") + h + "\r\n").kind
          == request_frame::head_only);
  const std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  CHECK(frame(chunked + "zz\r\n").kind == request_frame::head_only);
  CHECK(frame(chunked + "2000\r\n").kind == request_frame::head_only); // > cap
  CHECK(frame(chunked + std::string(100, '1')).kind == request_frame::head_only);
}
