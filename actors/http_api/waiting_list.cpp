#include "http_api/waiting_list.hpp"

#include <algorithm>

namespace dice {

void waiting_list::set_deadline(int fd, guest& g, time_point deadline) {
  deadlines_.erase({g.deadline, fd});
  g.deadline = deadline;
  deadlines_.insert({deadline, fd});
}

void waiting_list::add(int fd, time_point now, std::string pending) {
  remove(fd); // a reused descriptor: the old connection is gone
  guest g{now, now, now, std::move(pending)};
  // A connection that has sent nothing may stay idle that long; the
  // start of a request must be completed within the request timeout.
  g.deadline = now + (g.bytes.empty() ? limits_.idle_timeout : limits_.request_timeout);
  deadlines_.insert({g.deadline, fd});
  guests_.emplace(fd, std::move(g));
}

std::optional<waiting_list::request>
waiting_list::receive(int fd, std::string_view bytes, time_point now) {
  auto it = guests_.find(fd);
  if (it == guests_.end() || bytes.empty())
    return std::nullopt;
  auto& g = it->second;
  if (g.bytes.empty()) {
    g.started = now;
    set_deadline(fd, g, now + limits_.request_timeout);
  }
  g.bytes.append(bytes);
  if (frame_request(g.bytes, limits_.framing).kind == request_frame::incomplete)
    return std::nullopt;
  request r{std::move(g.bytes), g.started};
  remove(fd);
  return r;
}

void waiting_list::remove(int fd) {
  auto it = guests_.find(fd);
  if (it == guests_.end())
    return;
  deadlines_.erase({it->second.deadline, fd});
  guests_.erase(it);
}

std::optional<int> waiting_list::oldest() const {
  auto it = std::min_element(guests_.begin(), guests_.end(), [](const auto& a, const auto& b) {
    return a.second.since < b.second.since;
  });
  if (it == guests_.end())
    return std::nullopt;
  return it->first;
}

std::vector<std::pair<int, waiting_list::close_reason>>
waiting_list::expire(time_point now) {
  std::vector<std::pair<int, close_reason>> out;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    auto fd = deadlines_.begin()->second;
    const auto& g = guests_.at(fd);
    out.emplace_back(fd, g.bytes.empty() ? close_reason::idle : close_reason::timed_out);
    remove(fd);
  }
  return out;
}

std::optional<waiting_list::time_point> waiting_list::next_deadline() const {
  if (deadlines_.empty())
    return std::nullopt;
  return deadlines_.begin()->first;
}

} // namespace dice
