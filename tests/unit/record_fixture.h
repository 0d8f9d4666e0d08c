/* The run record the unit tests start from: the first seed's run
 * (qsbench -n 90000000 -s 140175100, 70.270u 7.330s 2:33.29 50.6%) with
 * the whole state of the box it ran on ("lenstra": 2 CPUs, 256 MiB, 191 MiB
 * of swap, a 128 MiB limit) and free(1) before and after. A test sets what
 * it varies; workers, sysctl changes, strings and series are its own. */
#ifndef THRASHTOP_TEST_RECORD_FIXTURE_H
#define THRASHTOP_TEST_RECORD_FIXTURE_H

#include "history.h"

void fixture_record(struct run_record *r);

#endif
