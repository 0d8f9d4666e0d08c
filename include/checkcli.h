/* `thrashtop check`: runs the workload as a session does, against a
 * baseline (a label, a group, run ids, or posted time lines), as many
 * times as the answer needs and no more than --max-runs, and exits with
 * the verdict: 0 no regression, 1 regression, 125 unsure or could not
 * run (git bisect run's skip), 128+N after signal N. */
#ifndef THRASHTOP_CHECKCLI_H
#define THRASHTOP_CHECKCLI_H

/* argv[0] is "check". Returns the exit status. */
int checkcli_main(int argc, char **argv);

#endif
