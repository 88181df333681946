#pragma once
// Ricart-Agrawala (seed 001): a node asks every other live node, with its
// Lamport timestamp, and enters once all answered OK. A node answers at once
// unless it holds the resource or wants it with an earlier (timestamp, id);
// then it defers the answer until it leaves. 2(n-1) messages an entry.
// Requests are sent again to whoever has not answered (loss); answers name
// the request, so duplicates and strays change nothing; a node that leaves
// the membership is no longer asked. Not safe under partitions: each side
// declares the other dead and stops asking it.
#include <map>
#include <set>
#include <utility>

#include "clocks/lamport_clock.hpp"
#include "mutex/mutex.hpp"

namespace dice {

class ricart_agrawala_mutex : public mutex_state {
public:
  ricart_agrawala_mutex(std::string self_id, mutex_config cfg);

  void on_view(std::vector<std::string> live, millis now) override;
  void request(const std::string& r, millis now) override;
  void release(const std::string& r, millis now) override;
  void on_message(const std::string& from, const wire::Mutex& m,
                  millis now) override;
  void tick(millis now) override;
  std::vector<lock_info> locks() const override;

private:
  struct want {
    std::uint64_t clock = 0;
    std::uint64_t request = 0;
    std::set<std::string> oks;
  };
  void ask(const std::string& r, const want& w, const std::string& to);
  void maybe_enter(const std::string& r);

  lamport_clock clock_;
  std::map<std::string, want> want_;
  // Answers withheld until we leave: resource -> requester -> request.
  std::map<std::string, std::map<std::string, std::uint64_t>> deferred_;
};

} // namespace dice
