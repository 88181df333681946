#pragma once
// `dice submit --wait` and `dice wait`: follow tasks to their end, drawing
// a live bar on a terminal and plain lines otherwise, then a summary.
#include <string>
#include <vector>

#include "client.hpp"

namespace dice::cli {

/// The exit codes of a wait, as `dice --help` documents them.
enum wait_exit : int {
  all_done = 0,
  some_failed = 1,    // failed, expired, canceled or removed
  unreachable = 3,    // no member of the cluster answered
  timed_out = 4,      // --timeout passed; the tasks go on
};

struct wait_request {
  std::vector<std::string> ids;
  double timeout_s = 3600;
  bool json = false;
  /// Where the ids were written (--ids-file), for the hint on how to
  /// follow them again; "" if they were printed.
  std::string ids_file;
};

/// Follows the tasks through `node`; when it stops answering, through
/// another live member (learnt from GET /network at the start). Returns a
/// wait_exit.
int wait_for(client& node, const wait_request& w);

/// The ids of a file written by --ids-file (one per line). False, with
/// `error`, if it cannot be read or holds none.
bool read_ids_file(const std::string& path, std::vector<std::string>& ids,
                   std::string& error);
/// Writes one id per line. False, with `error`, if it cannot.
bool write_ids_file(const std::string& path, const std::vector<std::string>& ids,
                    std::string& error);

} // namespace dice::cli
