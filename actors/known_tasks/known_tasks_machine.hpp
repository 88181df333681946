#pragma once
// The known_tasks subsystem: the replica of every task's spec and merged
// state. It merges what communication delivers, tells the other subsystems
// of every change, answers for the tasks it holds (unknown-task answers,
// snapshot chunks) and takes the user's operations on tasks. A task that
// ended is forgotten once its retention passed (forgotten_set.hpp): it
// leaves the replica, and what names it later is refused.
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "known_tasks/forgotten_set.hpp"
#include "known_tasks/known_tasks.hpp"
#include "known_tasks/parents.hpp"
#include "known_tasks/schedules.hpp"
#include "known_tasks/replica_sink.hpp"
#include "known_tasks/task_query.hpp"
#include "vocabulary/queue_config.hpp"
#include "vocabulary/queue_counters.hpp"
#include "vocabulary/queue_events.hpp"

namespace dice {

class known_tasks_machine {
public:
  /// `origin`: this incarnation's (node#incarnation); it numbers the
  /// tasks submitted here.
  known_tasks_machine(std::string id, std::string origin, queue_config cfg);

  void on(const ev::merge_message& e, millis now, ev::events& out);
  void on(const ev::merge_task& e, millis now, ev::events& out);
  void on(const ev::snapshot_wanted& e, millis now, ev::events& out);
  void on(const ev::question_heard& e, millis now, ev::events& out);
  void on(const ev::answer_due& e, millis now, ev::events& out);
  void on(const ev::member_recovered& e, millis now, ev::events& out);
  void on(const ev::tasks_adopted& e, millis now, ev::events& out);
  void on(const ev::merge_forgotten& e, millis now, ev::events& out);
  /// Who enqueues a schedule's tick first ranks among the live nodes.
  void on(const ev::live_nodes& e, millis now, ev::events& out);
  /// Forgets the ended tasks whose retention passed; enqueues the
  /// schedules' ticks that are this node's to enqueue now.
  void tick(millis now, ev::events& out);
  /// When the next ended task is due to be forgotten, a forgotten id
  /// leaves the recent list, or a schedule's tick falls due.
  std::optional<millis> next_due() const;

  /// Where every change is kept beyond the process (none: memory only).
  void keep_in(replica_sink* sink) { sink_ = sink; }
  /// Merges what the journal held at start, telling the other subsystems
  /// of every task as of any change (one digest for all).
  void restore(const std::vector<wire::TakeMyTask>& records, millis now,
               ev::events& out);

  // -- user operations (the paper's API) -------------------------------------

  /// enqueue: false if the id is empty or already known.
  /// `ack`: answered once another replica holds it (a client waits).
  bool submit(wire::TaskSpec spec, millis now, ev::events& out, bool ack = true);
  /// removeByID: false if the task is already removed.
  bool remove(const std::string& task_id, millis now, ev::events& out);
  /// false if the task is unknown or has ended.
  bool cancel(const std::string& task_id, millis now, ev::events& out);

  const known_tasks& replica() const { return tasks_; }
  /// The numbers of every task this replica forgot.
  const forgotten_set& forgotten() const { return forgotten_; }
  /// The node answering for a task: the coordinator that adopted it after
  /// its enqueuer died, or the enqueuer ("" if the task is unknown).
  std::string owner_of(const std::string& task_id) const;
  /// The rows a query asks for: in the order of its ids, or in id order.
  std::vector<task_row> query(const task_query& q) const;
  /// How many tasks whose spec is known are in each state.
  const task_counts& counts() const { return tasks_.counts(); }

  const queue_counters& counters() const { return counters_; }
  /// Ids forgotten lately, still refused by id alone.
  std::size_t recently_forgotten() const { return recent_.size(); }

private:
  bool learn(const wire::TaskSpec& spec, ev::events& out);
  void publish(const std::string& task_id, millis now, ev::events& out);
  /// publish() without the digest.
  void announce(const std::string& task_id, millis now, ev::events& out);
  /// Tells the other subsystems the task's state (task_changed).
  void tell(const std::string& task_id, millis now, ev::events& out);
  /// The spec the other subsystems see: a child whose parents all ended
  /// carries their ends (its inputs); one a parent ended is canceled.
  std::shared_ptr<const wire::TaskSpec>
  spec_with_inputs(const std::string& task_id, const known_task& t, millis now,
                   ev::events& out);
  /// Keeps the index of waiting children as `child` changes.
  void follow_parents(const wire::TaskSpec& child, bool ended, millis now);
  /// A parent ended the task: its owner cancels it, for every replica;
  /// another replica, only if the owner stays silent (cancel_orphans).
  void end_for_parent(const std::string& task_id, const known_task& t,
                      const std::string& reason, millis now, ev::events& out);
  /// end_for_parent() if a parent ended the task (after an adoption).
  void settle_parents(const std::string& task_id, millis now, ev::events& out);
  /// How long a replica waits for a child's owner to cancel it.
  millis orphan_cancel_ms() const;
  /// Cancels the children a parent ended whose owners stayed silent.
  void cancel_orphans(millis now, ev::events& out);
  /// The child no longer waits for its owner's cancel (it ended, or went).
  void drop_orphan(const std::string& task_id);
  /// Originates the task's cancel (CANCELED, `reason`).
  void originate_end(const std::string& task_id, std::uint32_t attempt,
                     const std::string& reason, millis now, ev::events& out);
  /// Schedules (or unschedules) the task's forgetting after a change.
  void schedule_forget(const std::string& task_id, const known_task& t,
                       millis now);
  void unschedule(const std::string& task_id);
  /// The id joins the recent list (refused by id for forgotten_ids_ms).
  void note_recent(const std::string& task_id, millis now);
  /// What this replica answers a question about the task: the task
  /// (TAKE_MY_TASK, ALREADY_FINISHED_TASK), that it forgot it, or nothing.
  std::optional<wire::Message> answer_about(const std::string& task_id) const;
  /// `sender` still takes `task` for live when it ended, or for free when
  /// another claim holds it: tell it, if this node is one of the few that
  /// do.
  void tell_behind(const known_task& task, const std::string& sender,
                  ev::events& out);
  /// Forgotten here lately and not held again: asked about, the replica
  /// answers that it forgot the task.
  bool forgotten_lately(const std::string& task_id) const;
  /// A peer forgot the task: what this replica holds of it by id alone
  /// goes; nothing else does (a spec held is forgotten by its number).
  void forgotten_elsewhere(const std::string& task_id, millis now, ev::events& out);
  /// The task leaves the replica; its number joins the forgotten set.
  void forget(const std::string& task_id, millis now, ev::events& out);
  /// forget() of a task the cluster ended and forgot: unended here, it is
  /// told to the other subsystems as removed first.
  void forget_ended_elsewhere(const std::string& task_id, millis now,
                              ev::events& out);
  /// True (and counted) if what a message says of this task must be
  /// refused: a spec whose number is forgotten, or, for a message naming
  /// the task by id alone, an id forgotten lately and not held again.
  bool refused(const std::string& task_id, const wire::TaskSpec* spec,
               millis now, ev::events& out);
  /// Forgets the tasks held whose numbers `forgotten_` now holds.
  void drop_forgotten(millis now, ev::events& out);
  task_row row(const std::string& task_id, const known_task& t) const;

  std::string id_;
  queue_config cfg_;
  known_tasks tasks_;
  // Specs of unended tasks as shared by the events that carry them.
  std::map<std::string, std::shared_ptr<const wire::TaskSpec>> specs_;
  std::set<std::string> submitted_;
  // Children waiting on parents; those this node canceled for a parent.
  dependants dependants_;
  schedule_ticker ticker_;
  std::set<std::string> parent_cancels_;
  // Children a parent ended, owned elsewhere, by when this replica cancels
  // each itself if it has not ended by then, and that time of each.
  std::set<std::pair<millis, std::string>> orphans_due_;
  std::map<std::string, millis> orphan_at_;
  std::map<std::string, std::string> adopted_by_; // task id -> new owner
  std::string origin_;
  std::uint64_t created_ = 0; // tasks numbered by this incarnation
  forgotten_set forgotten_;
  // Ended tasks by when they are forgotten, and each one's time.
  std::set<std::pair<millis, std::string>> due_;
  std::map<std::string, millis> due_at_;
  // Ids forgotten within forgotten_ids_ms, oldest first.
  // Looked up for every message naming a task by id alone: hashed.
  std::unordered_map<std::string, millis> recent_;
  std::deque<std::pair<millis, std::string>> recent_order_;
  queue_counters counters_;
  replica_sink* sink_ = nullptr;
};

/// The machine its actor runs (queue/), built the same in unit tests.
known_tasks_machine make_known_tasks_machine(const machine_config& c);

} // namespace dice
