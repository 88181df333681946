#pragma once
// Evaluations as operations on a running node, for every front door: the
// HTTP routes (POST/GET /evaluation) and the embedding API call these.
// Submitting finds the project's modules, copies its blob to peers (so the
// evaluation survives this node's death), ranks the modules (see
// evaluation_plan.hpp) and enqueues the record and module tasks; a report
// is computed from the replica's tasks, the same on every node.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>

#include "tester/evaluation.hpp"
#include "tester/evaluation_plan.hpp"

namespace dice {

class node;
struct tester_parts;

/// What became of a submission. `refused` says why not (empty: enqueued).
struct evaluation_receipt {
  enum class refusal { none, bad_project, busy, queue_full };
  refusal refused = refusal::none;
  std::string error;
  std::string id;
  std::uint32_t modules = 0;
  std::string blob;
  std::size_t blob_copies = 0;   // nodes holding the blob, this one included
  bool replicated = false;       // another replica held the tasks in time
};

class evaluation_service {
public:
  evaluation_service(caf::actor_system& sys, const node& n);

  /// Stores `bytes` (a .tar.gz, .tar or .zip) as the project's blob;
  /// empty with `error` set if the upload is empty or not stored.
  std::string store_upload(const std::string& bytes, std::string& error);
  /// Packs directory `dir` into a blob; empty with `error` set.
  std::string store_directory(const std::string& dir, std::string& error);
  /// Clones git repository `url` (`git clone --depth 1`, as the runner's
  /// user under root) into a blob; empty with `error` set.
  std::string store_clone(const std::string& url, std::string& error);

  /// Submits an evaluation of the blob `sha` (from one of the store_*).
  evaluation_receipt submit(evaluation_request ask, const std::string& sha);

  /// The report of evaluation `id` (GET /evaluation/{id}); nullopt if
  /// unknown, with `error` set if the node did not answer.
  std::optional<nlohmann::json> report(const std::string& id, std::string& error);
  /// Every evaluation the replica holds, oldest first, with its modules.
  std::vector<std::pair<evaluation_record, std::vector<module_row>>>
  all(std::string& error);

private:
  /// Live nodes that run tests, this one included if it does.
  std::size_t runner_nodes() const;
  std::optional<std::vector<module_row>> module_rows(const evaluation_record& e,
                                                     std::string& error);

  caf::actor_system& sys_;
  const node& node_;
  const tester_parts& parts_;
};

} // namespace dice
