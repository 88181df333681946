#pragma once
// Voting (seed 001: Lin et al.'s majority of coordinators, with Maekawa's
// inquire/yield against deadlock): every node is a voter for every resource
// and gives its one vote to one request at a time, queueing the others by
// (Lamport timestamp, id). A requester enters once a majority of every
// member it has seen (or of mutex_config::voters, if larger) voted for it.
// When an earlier request waits, a voter asks its vote back (inquire); a
// requester not yet inside yields it.
// The one algorithm safe under partitions: a majority exists on one side at
// most. To free the votes of a holder that died or was cut off, votes are
// leases: a holder refreshes its request every retry_ms, voters echo the
// holder's send time, and the holder lets go (take_lost) once a majority's
// echoes are older than lease_ms; a voter takes its vote back only after
// reclaim_ms (> lease_ms) without word from the holder, so the old holder
// has let go first. A starting node abstains for reclaim_ms: it may have
// voted in a previous life. Needs clocks that run at about the same rate,
// not synchronised ones.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "clocks/lamport_clock.hpp"
#include "mutex/mutex.hpp"

namespace dice {

class voting_mutex : public mutex_state {
public:
  voting_mutex(std::string self_id, mutex_config cfg);

  void on_view(std::vector<std::string> live, millis now) override;
  void request(const std::string& r, millis now) override;
  void release(const std::string& r, millis now) override;
  void on_message(const std::string& from, const wire::Mutex& m,
                  millis now) override;
  void tick(millis now) override;
  std::vector<lock_info> locks() const override;

  std::size_t quorum() const;

private:
  struct key { // a request, in the order voters grant them
    std::uint64_t clock = 0;
    std::string requester;
    std::uint64_t request = 0;
    bool operator<(const key& o) const {
      return std::tie(clock, requester, request)
             < std::tie(o.clock, o.requester, o.request);
    }
    bool operator==(const key& o) const {
      return requester == o.requester && request == o.request;
    }
  };
  struct ballot { // a voter's state for one resource
    std::optional<key> vote;
    std::uint64_t number = 0; // of the vote: a yield names it
    millis vote_stamp = 0;
    std::map<key, millis> queue; // waiting requests, with their stamps
    bool inquired = false;
  };
  struct want {
    key k;
    std::map<std::string, millis> votes; // voter -> newest echoed stamp
    // voter -> number of the vote we yielded: a late copy of it (reordered
    // behind the inquire) must not count.
    std::map<std::string, std::uint64_t> yielded;
  };

  static key key_of(const wire::Mutex& m);
  wire::Mutex message(const char* kind, const std::string& r, const key& k) const;
  void deliver(const std::string& to, wire::Mutex m, millis now);
  void born(millis now);

  // voter part
  void on_request(const std::string& from, const wire::Mutex& m, millis now);
  void give(const std::string& r, ballot& b, millis now);
  void give_next(const std::string& r, ballot& b, millis now);
  // requester part
  void on_vote(const std::string& from, const wire::Mutex& m, millis now);
  std::size_t fresh(const want& w, millis now) const;
  std::optional<millis> lapse(const want& w) const;
  void check(const std::string& r, millis now);

  lamport_clock clock_;
  std::set<std::string> members_; // every node seen: the voters
  std::optional<millis> abstain_until_;
  std::map<std::string, ballot> ballots_;
  std::uint64_t votes_given_ = 0; // numbers every vote this node gives
  std::map<std::pair<std::string, std::string>, millis> heard_; // (r, node)
  std::map<std::string, want> want_;
};

} // namespace dice
