/* A historical bug, put back to show that the model finds it: the order
 * compares attempts before the end classes, so a watcher's re-queue
 * (READY of the next attempt) sent while the executor's DONE was on its
 * way overrides the DONE and the task runs again. Spin must find it
 * (tests/model: the mutant check passes only if spin reports an error). */
#define MUTANT_REQUEUE_OVER_DONE
#include "queue.pml"
