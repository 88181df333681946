/* The replicated queue of DiCE as seen by one task's state: N replicas,
 * T tasks, an unreliable broadcast, crashes and restarts, checked by spin.
 *
 * What each replica does is what known_tasks, ranking, running_tasks and
 * ready_queue do to a task's state, with time taken out: every timeout
 * (a claim window, a silent executor, a backoff, an expiry, a retention)
 * may fire at any moment, so the model covers every ordering of them.
 *
 *   submit   the enqueuer (replica t % N) accepts task t: READY of
 *            attempt 1, in its journal before the user is answered
 *   claim    a replica holding READY claims the attempt (a DEQUEUE: RUNNING
 *            with its claim, of either quality); its execution waits for a
 *            slot (claimed ahead, prefetched)
 *   start    the execution begins; mark: its start mark is sent (an INFO
 *            with started_time_ms)
 *   finish   DONE, or a failure: READY of the next attempt (with or
 *            without a backoff) or FAILED once the attempts are used up
 *   requeue  a watcher finds the executor silent: READY of the next attempt
 *            (silence and slowness look alike, so it may fire any time)
 *   expire   a replica holding READY past the expiry: EXPIRED
 *   cancel, remove   a user's operation, once per task, at any replica
 *   forget   a replica forgets an ended task (its retention passed)
 *   pull     anti-entropy: a replica takes a peer's state of a task (the
 *            version vectors, op log and state transfer, abstracted)
 *   deliver, lose   the network: each replica has a bag of K messages;
 *            any message may be delivered next (reordering), delivered and
 *            kept (duplication) or lost; a full bag drops what is sent
 *   crash, restart  a replica stops (its executions, timers and inbox are
 *            lost) and comes back with its journal
 *   heal     from here on nothing fails and every replica hears every
 *            other: the run ends with the properties checked
 *
 * The journal is written before anything a replica emits leaves
 * (replica_journal.hpp), so a crash loses no merged state: S below is the
 * journaled state and survives crashes; the executions do not.
 *
 * Configuration (-D): N replicas (2..3), T tasks (1..2), MAXA attempts
 * (1..3), K message slots per replica (1..3), CRASHES in all; CANCEL,
 * REMOVE, EXPIRE, FORGET enable those actions. Smaller state spaces for
 * more replicas: ONE_QUALITY (every claim of one quality: the node id
 * decides), NO_MARK (no start marks), NO_LOSE (a message is lost only by
 * staying undelivered, or dropped from a full bag or by a crash).
 */
#include "task_state.pml"

#ifndef N
#define N 2
#endif
#ifndef T
#define T 1
#endif
#ifndef MAXA
#define MAXA 2
#endif
#ifndef K
#define K 2
#endif
#ifndef CRASHES
#define CRASHES 1
#endif

#define IX(r, t)  ((r) * T + (t))
#define MSG(t, s)  ((s) | ((t) << 11))
#define MSG_TASK(m)  ((m) >> 11)
#define MSG_STATE(m)  ((m) & 2047)

short S[N * T];      /* each replica's merged, journaled state of each task */
short bag[N * K];    /* messages on their way to each replica; 0: empty */
byte xa[N * T];      /* the attempt this replica executes (0: none) */
byte xc[N * T];      /* ... with this claim */
bit xb[N * T];       /* ... and its execution began (else claimed ahead) */
bit xm[N * T];       /* ... and its start mark was sent */
bit up[N];
byte crashes;
bit submitted[T];
bit canceled[T];
bit removed[T];

/* Ghosts: what the properties are judged against. */
short top[T];        /* the merge of every state any replica originated */
bit accepted[T];     /* a user was told the task is queued */
bit ever_done[T];    /* some replica held DONE */
bit ever_ended[T];   /* some replica held an end state */

hidden short cur, nxt, got, joined, made, pm;
hidden int cmp_r;
hidden byte i, j, d, u, p, tt, holders, rounds;
hidden byte changed, again, forgotten_somewhere, seen;

/* Keeps a bag's messages in one order (empty slots last), so that two
 * bags holding the same messages are one state. */
inline sort_bag(r) {
  for (i : 0 .. K - 2) {
    for (j : 0 .. K - 2 - i) {
      if
      :: bag[r * K + j] < bag[r * K + j + 1] ->
         got = bag[r * K + j];
         bag[r * K + j] = bag[r * K + j + 1];
         bag[r * K + j + 1] = got
      :: else
      fi
    }
  };
  i = 0; j = 0; got = 0
}

/* The messages on their way to replica r about task t that its state
 * already includes: their delivery, first or duplicate, changes nothing
 * (the merge is a join and the state only grows, both asserted), so they
 * leave its bag. This keeps the bags small, and two runs that differ only
 * in such messages are one state. */
inline purge(r, t) {
  for (p : 0 .. K - 1) {
    if
    :: bag[r * K + p] != 0 && MSG_TASK(bag[r * K + p]) == t ->
       if
       :: PH(S[IX(r, t)]) == FORGOTTEN -> bag[r * K + p] = 0
       :: else ->
          merge(S[IX(r, t)], MSG_STATE(bag[r * K + p]), pm);
          if
          :: pm == S[IX(r, t)] -> bag[r * K + p] = 0
          :: else
          fi
       fi
    :: else
    fi
  };
  p = 0; pm = 0; merge_r = 0;
  sort_bag(r)
}

/* Sends m to replica dst: a copy already on its way stands for this one;
 * a full bag or a replica that is down drops it; so does purge() if dst
 * already holds what it says. */
inline put(dst, m) {
  if
  :: up[dst] ->
     seen = 0;
     for (i : 0 .. K - 1) {
       if
       :: bag[dst * K + i] == m -> seen = 1
       :: else
       fi
     };
     if
     :: seen == 0 && bag[dst * K + K - 1] == 0 ->
        bag[dst * K + K - 1] = m;
        purge(dst, MSG_TASK(m))
     :: else
     fi;
     seen = 0; i = 0
  :: else
  fi
}

inline broadcast(r, m) {
  for (d : 0 .. N - 1) {
    if
    :: d != r -> put(d, m)
    :: else
    fi
  };
  d = 0
}

/* Merges s into replica r's state of task t, checking on every change
 * that the state only grows and that an end stays an end. */
inline local_merge(r, t, s) {
  cur = S[IX(r, t)];
  merge(cur, s, nxt);
  if
  :: nxt != cur ->
     compare(nxt, cur, cmp_r);
     assert(cmp_r > 0);
     /* At most one end state: an end is never followed by a non-end. */
     assert(!TERMINAL(PH(cur)) || TERMINAL(PH(nxt)));
     /* A finished task is never re-queued (nor run again). */
     assert(PH(cur) != DONE || PH(nxt) == DONE || PH(nxt) == REMOVED);
     S[IX(r, t)] = nxt;
     purge(r, t);
     if
     :: TERMINAL(PH(nxt)) -> ever_ended[t] = 1
     :: else
     fi;
     if
     :: PH(nxt) == DONE -> ever_done[t] = 1
     :: else
     fi
  :: else
  fi;
  cur = 0; nxt = 0; cmp_r = 0; merge_r = 0
}

/* What a replica does with a state it hears of (a message, a pull):
 * a task it forgot stays forgotten; a forgotten task it holds goes. */
inline receive(r, t, s) {
  printf("r%d hears t%d <%d>, holding <%d>\n", r, t, s, S[IX(r, t)]);
  if
  :: PH(S[IX(r, t)]) == FORGOTTEN -> skip
  :: PH(S[IX(r, t)]) != FORGOTTEN && PH(s) == FORGOTTEN ->
     S[IX(r, t)] = FORGOTTEN;
     purge(r, t);
     xa[IX(r, t)] = 0; xc[IX(r, t)] = 0; xb[IX(r, t)] = 0; xm[IX(r, t)] = 0
  :: else -> local_merge(r, t, s)
  fi
}

/* A state this replica makes: merged here first, then broadcast as it
 * was made (a DEQUEUE is sent even if a better claim is already here). */
inline originate(r, t, s) {
  made = s; /* once: s may be an expression of the state it changes */
  printf("r%d says t%d <%d>\n", r, t, made);
  local_merge(r, t, made);
  merge(top[t], made, got);
  top[t] = got;
  got = 0;
  broadcast(r, MSG(t, made));
  made = 0
}

inline stop(r, t) {
  xa[IX(r, t)] = 0; xc[IX(r, t)] = 0; xb[IX(r, t)] = 0; xm[IX(r, t)] = 0
}

/* running_tasks_machine::judge: after every change, an execution stops if
 * the task ended or a better claim of its attempt won; if the task was
 * re-queued while it ran, it claims the new attempt with its claim. */
inline judge(r, t) {
  again = 1;
  do
  :: again == 0 -> break
  :: else ->
     again = 0;
     if
     :: xa[IX(r, t)] == 0 -> skip
     :: xa[IX(r, t)] != 0 && (TERMINAL(PH(S[IX(r, t)])) || PH(S[IX(r, t)]) == FORGOTTEN) ->
        printf("r%d stops its execution of t%d: it ended\n", r, t);
        stop(r, t)
     :: xa[IX(r, t)] != 0 && !TERMINAL(PH(S[IX(r, t)])) && PH(S[IX(r, t)]) != FORGOTTEN && AT(S[IX(r, t)]) > xa[IX(r, t)] ->
        xa[IX(r, t)] = AT(S[IX(r, t)]);
        xm[IX(r, t)] = 0;
        printf("r%d re-claims t%d for the attempt it was re-queued as\n", r, t);
        originate(r, t, MK(RUNNING, xa[IX(r, t)], xc[IX(r, t)], 0, 0));
        again = 1
     :: xa[IX(r, t)] != 0 && !TERMINAL(PH(S[IX(r, t)])) && PH(S[IX(r, t)]) != FORGOTTEN && AT(S[IX(r, t)]) <= xa[IX(r, t)] ->
        if
        :: PH(S[IX(r, t)]) == RUNNING && CL(S[IX(r, t)]) != xc[IX(r, t)] && CLAIM_KEY(CL(S[IX(r, t)])) > CLAIM_KEY(xc[IX(r, t)]) ->
           printf("r%d stops its execution of t%d: a better claim won\n", r, t);
           stop(r, t)
        :: else
        fi
     fi
  od;
  /* The loser learns it: an execution left running is the one the
   * replica's merged state names. */
  assert(xa[IX(r, t)] == 0 || (PH(S[IX(r, t)]) == RUNNING && AT(S[IX(r, t)]) == xa[IX(r, t)] && CL(S[IX(r, t)]) == xc[IX(r, t)]))
}

inline submit(r, t) {
  printf("r%d: a user submits t%d\n", r, t);
  submitted[t] = 1;
  accepted[t] = 1;
  originate(r, t, MK(READY, 1, 0, 0, 0))
}

inline claim(r, t, q) {
  printf("r%d: claims t%d\n", r, t);
  xa[IX(r, t)] = AT(S[IX(r, t)]);
  xc[IX(r, t)] = CLAIM(r, q);
  originate(r, t, MK(RUNNING, xa[IX(r, t)], xc[IX(r, t)], 0, 0));
  judge(r, t)
}

inline mark(r, t) {
  printf("r%d: its execution of t%d began (start mark)\n", r, t);
  xm[IX(r, t)] = 1;
  originate(r, t, MK(RUNNING, xa[IX(r, t)], xc[IX(r, t)], 1, 0));
  judge(r, t)
}

inline finish_done(r, t) {
  printf("r%d: its execution of t%d succeeds\n", r, t);
  got = MK(DONE, xa[IX(r, t)], xc[IX(r, t)], 1, 0);
  joined = got;
  stop(r, t);
  originate(r, t, joined);
  joined = 0
}

/* A failed execution (named by the merged state: the invariant of judge):
 * FAILED once the attempts are used up, else READY of the next attempt. */
inline finish_failed(r, t, backoff) {
  printf("r%d: its execution of t%d fails\n", r, t);
  if
  :: xa[IX(r, t)] >= MAXA -> joined = MK(FAILED, xa[IX(r, t)], xc[IX(r, t)], 1, 0)
  :: else -> joined = MK(READY, xa[IX(r, t)] + 1, 0, 0, backoff)
  fi;
  stop(r, t);
  originate(r, t, joined);
  joined = 0
}

inline requeue(r, t) {
  printf("r%d: finds the executor of t%d silent, re-queues it\n", r, t);
  originate(r, t, MK(READY, AT(S[IX(r, t)]) + 1, 0, 0, 0));
  judge(r, t)
}

inline expire(r, t) {
  printf("r%d: t%d expires\n", r, t);
  originate(r, t, MK(EXPIRED, AT(S[IX(r, t)]), 0, 0, 0));
  judge(r, t)
}

inline cancel(r, t) {
  printf("r%d: a user cancels t%d\n", r, t);
  canceled[t] = 1;
  originate(r, t, MK(CANCELED, AT(S[IX(r, t)]), 0, 0, 0));
  judge(r, t)
}

inline remove(r, t) {
  printf("r%d: a user removes t%d\n", r, t);
  removed[t] = 1;
  originate(r, t, MK(REMOVED, 0, 0, 0, 0));
  judge(r, t)
}

inline forget(r, t) {
  printf("r%d: forgets t%d (retention passed)\n", r, t);
  S[IX(r, t)] = FORGOTTEN;
  purge(r, t)
}

inline pull(r, src, t) {
  printf("r%d: pulls t%d from r%d (anti-entropy)\n", r, t, src);
  receive(r, t, S[IX(src, t)]);
  judge(r, t)
}

inline deliver(r, k, keep) {
  got = bag[r * K + k];
  tt = MSG_TASK(got);
  joined = MSG_STATE(got);
  if
  :: keep -> skip
  :: else -> bag[r * K + k] = 0; sort_bag(r)
  fi;
  receive(r, tt, joined);
  judge(r, tt);
  got = 0; tt = 0; joined = 0
}

inline lose(r, k) {
  printf("network: loses a message to r%d\n", r);
  bag[r * K + k] = 0;
  sort_bag(r)
}

inline crash(r) {
  printf("r%d: crashes\n", r);
  crashes++;
  up[r] = 0;
  for (tt : 0 .. T - 1) {
    stop(r, tt)
  };
  for (i : 0 .. K - 1) {
    bag[r * K + i] = 0
  };
  tt = 0; i = 0
}

/* Heal: every replica up, every state heard by every replica until
 * nothing changes (executions react as to any merge); then the
 * properties of a quiet network. */
inline heal() {
  printf("heal: every replica up, every state heard by all\n");
  for (u : 0 .. N - 1) {
    up[u] = 1
  };
  changed = 1;
  rounds = 0;
  do
  :: changed == 0 -> break
  :: changed != 0 && rounds > 2 * N * T + 2 -> break /* a merge that does not settle: caught below */
  :: else ->
     changed = 0;
     rounds++;
     for (tt : 0 .. T - 1) {
       joined = 0;
       forgotten_somewhere = 0;
       for (u : 0 .. N - 1) {
         if
         :: PH(S[IX(u, tt)]) == FORGOTTEN -> forgotten_somewhere = 1
         :: else ->
            merge(joined, S[IX(u, tt)], got);
            joined = got
         fi
       };
       if
       :: forgotten_somewhere -> joined = FORGOTTEN
       :: else
       fi;
       for (u : 0 .. N - 1) {
         if
         :: joined != 0 && S[IX(u, tt)] != joined ->
            changed = 1;
            receive(u, tt, joined);
            judge(u, tt)
         :: else
         fi
       }
     }
  od;
  for (tt : 0 .. T - 1) {
    for (u : 0 .. N - 1) {
      printf("r%d holds t%d <%d>, executing attempt %d\n", u, tt, S[IX(u, tt)], xa[IX(u, tt)])
    };
    holders = 0;
    for (u : 0 .. N - 1) {
      /* Convergence: every replica holds the same state. */
      assert(S[IX(u, tt)] == S[IX(0, tt)]);
      if
      :: xa[IX(u, tt)] != 0 -> holders++
      :: else
      fi
    };
    /* One execution of the task goes on at most, the one named. */
    assert(holders <= 1);
    /* No accepted task is lost: it is held, or forgotten after it ended. */
    assert(!accepted[tt] || S[IX(0, tt)] != 0);
    if
    :: PH(S[IX(0, tt)]) == FORGOTTEN -> assert(TERMINAL(PH(top[tt])))
    :: else ->
       /* Nothing any replica said is lost: the merge of it all. */
       assert(S[IX(0, tt)] == top[tt])
    fi;
    /* At most one end state, and a finished task is never re-queued. */
    assert(!ever_ended[tt] || TERMINAL(PH(S[IX(0, tt)])) || PH(S[IX(0, tt)]) == FORGOTTEN);
    assert(!ever_done[tt] || PH(S[IX(0, tt)]) == DONE || PH(S[IX(0, tt)]) == REMOVED || PH(S[IX(0, tt)]) == FORGOTTEN)
  };
  tt = 0; u = 0; holders = 0; joined = 0; got = 0; rounds = 0
}

/* -- the actions of replica r on task t, each one indivisible step ------- */

#define TASK_STEPS(r, t) \
  :: d_step { up[r] && (r) == (t) % N && !submitted[t] -> submit(r, t) } \
  :: d_step { up[r] && PH(S[IX(r, t)]) == READY && xa[IX(r, t)] == 0 -> claim(r, t, 0) } \
  CLAIM_Q1_STEP(r, t) \
  :: d_step { up[r] && xa[IX(r, t)] != 0 && !xb[IX(r, t)] -> printf("r%d: a slot takes t%d\n", r, t); xb[IX(r, t)] = 1 } \
  MARK_STEP(r, t) \
  :: d_step { up[r] && xb[IX(r, t)] -> finish_done(r, t) } \
  :: d_step { up[r] && xb[IX(r, t)] -> finish_failed(r, t, 0) } \
  :: d_step { up[r] && xb[IX(r, t)] && xa[IX(r, t)] < MAXA -> finish_failed(r, t, 1) } \
  :: d_step { up[r] && PH(S[IX(r, t)]) == RUNNING && CLAIM_NODE(CL(S[IX(r, t)])) != (r) && AT(S[IX(r, t)]) < MAXA -> requeue(r, t) } \
  OPTIONAL_STEPS(r, t)

#ifndef ONE_QUALITY
#define CLAIM_Q1_STEP(r, t) \
  :: d_step { up[r] && PH(S[IX(r, t)]) == READY && xa[IX(r, t)] == 0 -> claim(r, t, 1) }
#else
#define CLAIM_Q1_STEP(r, t)
#endif
#ifndef NO_MARK
#define MARK_STEP(r, t) \
  :: d_step { up[r] && xb[IX(r, t)] && !xm[IX(r, t)] -> mark(r, t) }
#else
#define MARK_STEP(r, t)
#endif
#ifdef EXPIRE
#define EXPIRE_STEP(r, t) \
  :: d_step { up[r] && PH(S[IX(r, t)]) == READY -> expire(r, t) }
#else
#define EXPIRE_STEP(r, t)
#endif
#ifdef CANCEL
#define CANCEL_STEP(r, t) \
  :: d_step { up[r] && !canceled[t] && S[IX(r, t)] != 0 && !TERMINAL(PH(S[IX(r, t)])) && PH(S[IX(r, t)]) != FORGOTTEN -> cancel(r, t) }
#else
#define CANCEL_STEP(r, t)
#endif
#ifdef REMOVE
#define REMOVE_STEP(r, t) \
  :: d_step { up[r] && !removed[t] && S[IX(r, t)] != 0 && PH(S[IX(r, t)]) != REMOVED && PH(S[IX(r, t)]) != FORGOTTEN -> remove(r, t) }
#else
#define REMOVE_STEP(r, t)
#endif
#ifdef FORGET
#define FORGET_STEP(r, t) \
  :: d_step { up[r] && TERMINAL(PH(S[IX(r, t)])) -> forget(r, t) }
#else
#define FORGET_STEP(r, t)
#endif
#define OPTIONAL_STEPS(r, t) EXPIRE_STEP(r, t) CANCEL_STEP(r, t) REMOVE_STEP(r, t) FORGET_STEP(r, t)

#define PULL_STEP(r, src, t) \
  :: d_step { up[r] && up[src] && S[IX(src, t)] != 0 && S[IX(src, t)] != S[IX(r, t)] -> pull(r, src, t) }

#define SLOT_STEPS(r, k) \
  :: d_step { up[r] && bag[(r) * K + (k)] != 0 -> deliver(r, k, 0) } \
  :: d_step { up[r] && bag[(r) * K + (k)] != 0 -> deliver(r, k, 1) } \
  LOSE_STEP(r, k)
#ifndef NO_LOSE
#define LOSE_STEP(r, k) \
  :: d_step { bag[(r) * K + (k)] != 0 -> lose(r, k) }
#else
#define LOSE_STEP(r, k)
#endif

#define NODE_STEPS(r) \
  :: d_step { up[r] && crashes < CRASHES -> crash(r) } \
  :: d_step { !up[r] -> printf("r%d: restarts from its journal\n", r); up[r] = 1 }

/* Every (replica, task), (replica, peer, task) and (replica, slot). */
#if T == 1
#define EACH_T(A, r) A(r, 0)
#define EACH_PT(A, r, p) A(r, p, 0)
#else
#define EACH_T(A, r) A(r, 0) A(r, 1)
#define EACH_PT(A, r, p) A(r, p, 0) A(r, p, 1)
#endif
#if K == 1
#define EACH_K(A, r) A(r, 0)
#elif K == 2
#define EACH_K(A, r) A(r, 0) A(r, 1)
#else
#define EACH_K(A, r) A(r, 0) A(r, 1) A(r, 2)
#endif
#define REPLICA(r) EACH_T(TASK_STEPS, r) EACH_K(SLOT_STEPS, r) NODE_STEPS(r)
#if N == 2
#define ALL_STEPS REPLICA(0) REPLICA(1) \
  EACH_PT(PULL_STEP, 0, 1) EACH_PT(PULL_STEP, 1, 0)
#else
#define ALL_STEPS REPLICA(0) REPLICA(1) REPLICA(2) \
  EACH_PT(PULL_STEP, 0, 1) EACH_PT(PULL_STEP, 0, 2) \
  EACH_PT(PULL_STEP, 1, 0) EACH_PT(PULL_STEP, 1, 2) \
  EACH_PT(PULL_STEP, 2, 0) EACH_PT(PULL_STEP, 2, 1)
#endif

init {
  d_step {
    for (u : 0 .. N - 1) {
      up[u] = 1
    };
    u = 0
  };
  do
  ALL_STEPS
  :: d_step { heal() }; break
  od
}
