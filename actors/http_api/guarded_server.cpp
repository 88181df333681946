#include "http_api/guarded_server.hpp"

#include <chrono>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_api/deadline_stream.hpp"
#include "http_api/request_framer.hpp"

namespace dice {

namespace {

// Set while the accept loop's thread closes a connection it has no place
// for (see admission::enqueue).
thread_local bool rejecting = false;

waiting_list::limits room_limits(const http_config& cfg) {
  // Heads beyond 16 KiB and bodies beyond 64 KiB (submits of large
  // payloads, uploads) are read on a server thread, within the request
  // timeout: buffering them here would let 1,024 slow connections hold
  // that much memory each.
  return {std::chrono::milliseconds(cfg.idle_timeout_ms),
          std::chrono::milliseconds(cfg.request_timeout_ms),
          framing_limits{16 * 1024, 64 * 1024}};
}

void send_busy(int fd) {
  static const char answer[] = "HTTP/1.1 503 Service Unavailable\r\n"
                               "Content-Type: application/json\r\n"
                               "Content-Length: 38\r\n"
                               "Connection: close\r\n\r\n"
                               "{\"error\":\"too many open connections\"}\n";
  ::send(fd, answer, sizeof(answer) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

} // namespace

// httplib's accept loop hands each accepted socket to this queue, as a
// function that serves it. The queue admits it into the waiting room
// (evicting the longest waiting connection if every place is taken) or
// has it closed at once, on the accept thread, so a flood never queues
// ahead of the next client. The pool serves requests the room read whole.
class guarded_server::admission : public httplib::TaskQueue {
public:
  admission(guarded_server& s, std::size_t threads) : s_(s), pool_(threads) {}

  void enqueue(std::function<void()> serve) override {
    if (s_.open() >= s_.cfg_.max_connections && !s_.room_.evict_oldest()) {
      rejecting = true;
      serve();
      rejecting = false;
      return;
    }
    ++s_.admitted_;
    serve(); // process_and_close_socket: parks it, no thread waits
  }

  void resume(waiting_room::guest c, waiting_list::request request) {
    // A std::function must be copyable: the connection travels as a
    // shared_ptr and is taken back out by the one call.
    auto held = std::make_shared<waiting_room::guest>(std::move(c));
    pool_.enqueue([this, held, r = std::move(request)]() mutable {
      s_.serve(std::move(*held), std::move(r));
    });
  }

  void shutdown() override {
    s_.admission_ = nullptr;
    s_.room_.stop();
    pool_.shutdown();
  }

private:
  guarded_server& s_;
  httplib::ThreadPool pool_;
};

guarded_server::guarded_server(const http_config& cfg)
  : cfg_(cfg),
    tls_(cfg.tls_cert_file.empty()
           ? nullptr
           : std::make_unique<tls_context>(cfg.tls_cert_file, cfg.tls_key_file)),
    room_(room_limits(cfg), [this](waiting_room::guest c, waiting_list::request r) {
      if (auto* a = admission_.load())
        a->resume(std::move(c), std::move(r));
      else
        close_connection(std::move(c));
    }) {
  new_task_queue = [this] {
    auto* a = new admission(*this, cfg_.threads);
    admission_ = a;
    return a;
  };
  // httplib's own timeouts bound each single read and write; ours bound
  // the whole request (deadline_stream).
  auto secs = static_cast<time_t>((cfg_.request_timeout_ms + 999) / 1000);
  set_read_timeout(secs);
  set_write_timeout(secs);
  set_keep_alive_timeout(static_cast<time_t>((cfg_.idle_timeout_ms + 999) / 1000));
  // httplib's default sets SO_REUSEPORT, with which a second node could
  // bind the same port and silently take half of the connections.
  set_socket_options([this](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    // Inherited by every accepted socket: an answer's body, written after
    // its headers, leaves at once instead of waiting for their ACK (Nagle).
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    listen_fd_ = fd;
  });
}

guarded_server::~guarded_server() {
  room_.stop();
}

bool guarded_server::bind(const std::string& host, int port) {
  if (!bind_to_port(host, port))
    return false;
  // httplib listens with a backlog of 5 (see http_config::listen_backlog);
  // listen() again on a listening socket only changes its backlog.
  return listen_fd_ < 0 || ::listen(listen_fd_, cfg_.listen_backlog) == 0;
}

std::uint64_t guarded_server::open() const {
  return admitted_ - closed_ - room_.closed();
}

connection_counters guarded_server::counters() const {
  connection_counters c;
  c.open = open();
  c.rejected = rejected_;
  c.evicted = room_.evicted();
  c.idle_closed = room_.idle_closed();
  c.timed_out = timed_out_ + room_.timed_out();
  c.failed = failed_ + room_.failed();
  return c;
}

bool guarded_server::process_and_close_socket(socket_t sock) {
  if (rejecting) {
    // A TLS client could not read a plain answer: it is only closed.
    if (!tls_)
      send_busy(sock);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    ++rejected_;
    return false;
  }
  ssl_st* session = nullptr;
  if (tls_ && (session = tls_->new_session()) == nullptr) {
    ::close(sock);
    ++failed_;
    ++closed_;
    return false;
  }
  room_.park(std::make_unique<http_connection>(sock, session));
  return true;
}

void guarded_server::close_connection(waiting_room::guest c) {
  c.reset();
  ++closed_;
}

void guarded_server::serve(waiting_room::guest c, waiting_list::request request) {
  if (svr_sock_ == INVALID_SOCKET)
    return close_connection(std::move(c)); // stopping
  const auto framing = room_limits(cfg_).framing;
  deadline_stream strm(*c, std::chrono::milliseconds(cfg_.request_timeout_ms),
                       std::move(request.bytes), request.started);
  for (;;) {
    bool closed = false;
    bool ok = process_request(strm, svr_sock_ == INVALID_SOCKET, closed, nullptr);
    if (!ok || closed) {
      if (strm.timed_out())
        ++timed_out_;
      return close_connection(std::move(c));
    }
    // A pipelined request already read is served here if it is whole;
    // the start of one waits in the room for the rest, without a thread.
    auto rest = strm.take_buffered();
    if (rest.empty() || frame_request(rest, framing).kind == request_frame::incomplete)
      return room_.park(std::move(c), std::move(rest));
    strm.begin_request(std::move(rest), deadline_stream::clock::now());
  }
}

} // namespace dice
