/* The merge of task_state.pml on every state of its domain (every phase
 * but FORGOTTEN, attempts 0..3, no claim or a claim of node 0..2 of
 * either quality, with and without a start mark and a not-before):
 *
 *   idempotent   merge(a, a) == a
 *   commutative  merge(a, b) == merge(b, a)
 *   selective    merge(a, b) is a or b (no state is made up)
 *   associative  the states, ranked by how many others each one beats,
 *                take every rank from 0 to n-1 exactly once: the "beats"
 *                relation of a commutative, selective merge is then a
 *                total order (a tournament is transitive iff its scores
 *                are distinct), and merge is its max, which associates.
 *                Checked directly as well on every triple of a smaller
 *                domain (attempts 0..1, claims of nodes 0..1).
 *
 * Compiled with -DPRINTF, pan prints each state and its rank: the table
 * model/merge_order.txt that tests/model/merge_conformance_test.cpp holds
 * the C++ merge to.
 */
#include "task_state.pml"

#define DOMAIN 784  /* 7 phases * 4 attempts * 7 claims * 2 * 2 */

hidden short sa, sb, sc, sab, sba, sbc, ix, sy;
hidden int n, k;
hidden short dom[DOMAIN];
hidden short rank[DOMAIN];
hidden short seen[DOMAIN];
byte done_checks;

/* The i-th state of the domain. */
inline state_at(idx, out) {
  out = MK(1 + idx / 112, (idx / 28) % 4, (idx / 4) % 7, (idx / 2) % 2, idx % 2)
}

init {
  d_step {
    for (n : 0 .. DOMAIN - 1) {
      state_at(n, sa);
      dom[n] = sa
    };
    for (n : 0 .. DOMAIN - 1) {
      sa = dom[n];
      merge(sa, sa, sab);
      assert(sab == sa);
      rank[n] = 0;
      for (k : 0 .. DOMAIN - 1) {
        sb = dom[k];
        merge(sa, sb, sab);
        merge(sb, sa, sba);
        assert(sab == sba);
        assert(sab == sa || sab == sb);
        if
        :: k != n && sab == sa -> rank[n] = rank[n] + 1
        :: else
        fi
      }
    };
    for (n : 0 .. DOMAIN - 1) {
      assert(seen[rank[n]] == 0);
      seen[rank[n]] = 1
    };
    printf("# phase attempt claim started not_before rank (model/task_state.pml)\n");
    for (n : 0 .. DOMAIN - 1) {
      sa = dom[n];
      printf("%d %d %d %d %d %d\n", PH(sa), AT(sa), CL(sa), ST(sa), NB(sa), rank[n])
    };
    /* Every triple of the smaller domain, directly. */
    for (n : 0 .. DOMAIN - 1) {
      sa = dom[n];
      if
      :: AT(sa) <= 1 && CL(sa) <= 4 ->
         for (k : 0 .. DOMAIN - 1) {
           sb = dom[k];
           if
           :: AT(sb) <= 1 && CL(sb) <= 4 ->
              merge(sa, sb, sab);
              for (ix : 0 .. DOMAIN - 1) {
                sc = dom[ix];
                if
                :: AT(sc) <= 1 && CL(sc) <= 4 ->
                   merge(sab, sc, sy);
                   merge(sb, sc, sbc);
                   merge(sa, sbc, sba);
                   assert(sy == sba)
                :: else
                fi
              }
           :: else
           fi
         }
      :: else
      fi
    };
    done_checks = 1
  };
  assert(done_checks == 1)
}
