#pragma once
// A census of holds: before a new coordinator grants anything (central), or
// before a lost token is made again (token ring), every live node tells what
// it holds. Asking again whoever has not answered makes it survive loss; a
// node that leaves the membership is no longer waited for. The census only
// counts the nodes its asker believes alive, so it is sound without
// partitions, not across them.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dice.pb.h"

namespace dice {

class hold_census {
public:
  /// Starts round `epoch` over `live` (self included, answered at once).
  void start(std::uint64_t epoch, const std::string& self,
             const std::vector<std::string>& live,
             std::vector<wire::MutexHold> own);
  /// An answer of this round from `from`; others are ignored.
  void on_answer(std::uint64_t epoch, const std::string& from,
                 const google::protobuf::RepeatedPtrField<wire::MutexHold>& holds);
  /// Stops waiting for nodes no longer live.
  void on_view(const std::vector<std::string>& live);
  void stop() { running_ = false; }

  bool running() const { return running_; }
  bool complete() const { return running_ && waiting_.empty(); }
  std::uint64_t epoch() const { return epoch_; }
  /// Who has not answered yet.
  const std::set<std::string>& waiting() const { return waiting_; }
  /// Resource -> the hold reported (the first report wins).
  const std::map<std::string, wire::MutexHold>& holds() const { return holds_; }

private:
  bool running_ = false;
  std::uint64_t epoch_ = 0;
  std::set<std::string> waiting_;
  std::map<std::string, wire::MutexHold> holds_;
};

} // namespace dice
