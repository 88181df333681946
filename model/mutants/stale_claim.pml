/* A historical bug, put back to show that the model finds it: between two
 * claims of one attempt the merge keeps the claim a replica already holds
 * (first come wins), as the paper's lottery did for claims arriving after
 * its window. Spin must find a run where replicas disagree on the winner
 * or two executions of one attempt both go on (tests/model: the mutant
 * check passes only if spin reports an error). */
#define MUTANT_STALE_CLAIM
#include "queue.pml"
