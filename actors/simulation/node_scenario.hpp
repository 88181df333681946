#pragma once
// The dice-sim scenario on production nodes (actor_cluster): submissions
// spread over the nodes, crash-and-restart events, a partition that heals,
// loss, duplication and reordering until faults_until_ms, causal events
// published along the way, with sim_options::locks every third task
// naming one lock, and shares of the tasks delayed or expiring. It runs
// until the cluster converges: every accepted task DONE on every live
// replica (REMOVED if removed, EXPIRED allowed if it expires), the replicas
// identical, no execution started before its task's not-before or after
// its expiry on its node's clock, every live node
// naming one live coordinator, every causal event delivered to every node
// that was up when it was published, in its origin's order, and no two
// executions of tasks naming the lock overlapping in virtual time (checked
// when no node was declared dead while it ran: membership's verdict is the
// locks' failure detector, and a wrong one is their way to two holders).
#include "simulation/sim_options.hpp"

namespace dice {

/// The report fills tasks, accepted, done, expired, removed, executions,
/// duplicates, converged, makespan_ms, the traffic, crashes, the queue's
/// counters, the timeline (timeline_every_ms) and the violations. With
/// linger_ms, the run goes on that long once converged, each node's
/// listing watched every 100 ms (retention_watch.hpp), and fills held and
/// forgotten.
sim_report run_node_scenario(const sim_options& opts);

} // namespace dice
