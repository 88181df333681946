#pragma once
// The centralized algorithm (seed 001): the elected coordinator grants each
// resource to one requester at a time and queues the others; request, grant,
// release: 3 messages an entry (plus the release's acknowledgement, since a
// lost release would keep the resource for ever). Requests and releases are
// sent again until answered; answers name the request, so duplicates and
// strays change nothing.
// A new coordinator knows nothing: it first takes a census of what every
// live node holds (epochs order coordinators; a node follows the latest
// census and refuses grants of older ones). Safe under loss, duplication,
// reordering and crashes; not under partitions, where each side elects its
// own coordinator.
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "mutex/hold_census.hpp"
#include "mutex/mutex.hpp"

namespace dice {

class central_mutex : public mutex_state {
public:
  central_mutex(std::string self_id, mutex_config cfg);

  void on_view(std::vector<std::string> live, millis now) override;
  void on_coordinator(const std::string& c, millis now) override;
  void request(const std::string& r, millis now) override;
  void release(const std::string& r, millis now) override;
  void on_message(const std::string& from, const wire::Mutex& m,
                  millis now) override;
  void tick(millis now) override;
  std::vector<lock_info> locks() const override;

private:
  using claim = std::pair<std::string, std::uint64_t>; // requester, request

  // -- the client part: every node ---------------------------------------
  void on_grant(const std::string& from, const wire::Mutex& m, millis now);
  void on_census(const std::string& from, const wire::Mutex& m, millis now);
  void to_coordinator(wire::Mutex m, millis now);

  // -- the coordinator part ------------------------------------------------
  void start_census(std::uint64_t epoch, millis now);
  void serve(const std::string& from, const wire::Mutex& m, millis now);
  void grant_next(const std::string& r, millis now);
  void send_grant(const std::string& r, const claim& c, millis now);

  std::string coordinator_;
  std::uint64_t epoch_ = 0; // of the census this node follows
  std::map<std::string, std::uint64_t> mine_;         // resource -> request
  std::set<std::pair<std::string, std::uint64_t>> releasing_;

  bool coordinating_ = false;
  hold_census census_;
  std::map<std::string, claim> holder_;
  std::map<std::string, std::deque<claim>> queue_;
};

} // namespace dice
