/* The task state of actors/known_tasks/task_state.{hpp,cpp} on a small
 * abstract domain, and its merge (the least upper bound of two states).
 *
 * A state is packed into one int so that it fits a message slot:
 *   bits 0-3  phase     (0: no entry for the task at this replica)
 *   bits 4-5  attempt   (0..3; REMOVED carries none)
 *   bits 6-8  claim     (0: none; else 1 + 2*node + quality)
 *   bit  9    start mark (started_time_ms != 0)
 *   bit  10   not-before (not_before_ms != 0: a re-queue with a backoff)
 *
 * Phases are numbered by their rank within one attempt (phase_rank() in
 * task_state.cpp), not by their wire numbers. FORGOTTEN stands for the
 * forgotten set (known_tasks/forgotten_set.hpp): it is no TaskState in
 * the code, but it tops the task's order the same way (a replica that
 * forgot a task refuses everything else about it).
 *
 * A claim is abstracted to (node, quality): the six criteria of
 * compare_claims() become "higher quality first, then the lower node
 * id". Quality stands for what varies between two claims of one task by
 * different nodes or attempts (battery, dequeue time...); the conformance
 * test maps it to the battery level and the node to its id.
 */
/* Scratch variables of the inlines below (kept out of the state vector). */
hidden int merge_r;

#define READY      1
#define RUNNING    2
#define FAILED     3
#define EXPIRED    4
#define CANCELED   5
#define DONE       6
#define REMOVED    7
#define FORGOTTEN  8

#define PH(s)  ((s) & 15)
#define AT(s)  (((s) >> 4) & 3)
#define CL(s)  (((s) >> 6) & 7)
#define ST(s)  (((s) >> 9) & 1)
#define NB(s)  (((s) >> 10) & 1)
#define MK(ph, at, cl, st, nb) \
  ((ph) | ((at) << 4) | ((cl) << 6) | ((st) << 9) | ((nb) << 10))

#define CLAIM(node, q)  (1 + 2 * (node) + (q))
#define CLAIM_NODE(c)   (((c) - 1) / 2)
#define CLAIM_Q(c)      (((c) - 1) % 2)

#define TERMINAL(p)  ((p) >= FAILED && (p) <= REMOVED)

/* The first key of the order: an end state outranks every non-terminal
 * state of any attempt, by its own rank; READY and RUNNING share class 1
 * and are ordered by attempt first. No entry is below everything. */
#define PHASE_CLASS(p)  ((p) == 0 -> 0 : (TERMINAL(p) || (p) == FORGOTTEN -> (p) : 1))

/* A claim's strength: none below every claim; higher quality first; then
 * the lower node id (node ids up to 2). */
#define CLAIM_KEY(c)  ((c) == 0 -> 0 : 1 + 3 * CLAIM_Q(c) + (2 - CLAIM_NODE(c)))

#define SIGN(x, y)  ((x) > (y) -> 1 : ((x) < (y) -> -1 : 0))

/* The order of compare_states(), key by key, as one number: the phase
 * class, the attempt, the phase, the claim, the start mark, the
 * not-before. Comparing two keys compares the states lexicographically.
 * (Each factor exceeds the largest value of the key below it.) */
#ifdef MUTANT_REQUEUE_OVER_DONE
/* The attempt first: a later attempt's READY tops DONE. */
#define ORDER_KEY(s) \
  (((((AT(s) * 9 + PHASE_CLASS(PH(s))) * 9 + PH(s)) * 7 + CLAIM_KEY(CL(s))) * 2 + ST(s)) * 2 + NB(s))
#else
#define ORDER_KEY(s) \
  (((((PHASE_CLASS(PH(s)) * 4 + AT(s)) * 9 + PH(s)) * 7 + CLAIM_KEY(CL(s))) * 2 + ST(s)) * 2 + NB(s))
#endif

/* r := <0, 0 or >0 as a is below, equal to or above b. */
inline compare(a, b, r) {
  r = SIGN(ORDER_KEY(a), ORDER_KEY(b))
}

/* out := the merge of `held` (what the replica holds) and `update`. */
inline merge(held, update, out) {
  compare(held, update, merge_r);
#ifdef MUTANT_STALE_CLAIM
  /* The claim already held stays against any other claim of its attempt
   * (first come wins, as the paper's late claims did). */
  if
  :: PH(held) == RUNNING && PH(update) == RUNNING && AT(held) == AT(update) && CL(held) != CL(update) -> merge_r = 1
  :: else
  fi;
#endif
  out = (merge_r >= 0 -> held : update)
}
