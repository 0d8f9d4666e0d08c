/* Fixtures for tests that change the machine: a private undo-state directory
 * per test, so they never touch a real session's records, and a way to try
 * a call as a normal user. */
#ifndef THRASHTOP_TEST_STATEDIR_H
#define THRASHTOP_TEST_STATEDIR_H

/* Takes the lock the e2e tests that change or press the machine take
 * (tests/e2e/lib.sh), once, until the process exits: another checkout's
 * tests then never see this run's sysctls, swap or cgroups. */
void machine_lock(void);

/* Takes the machine lock, creates /tmp/thrashtop-TAG-test-XXXXXX and points THRASHTOP_STATE_DIR at
 * it; the undo module learns how each kind of record is undone. */
void statedir_begin(const char *tag);

/* Removes it (state, state.tmp, lock) and unsets THRASHTOP_STATE_DIR. */
void statedir_end(void);

#include <stddef.h>

/* Runs fn in a child as uid/gid nobody with no groups, and copies the error
 * line it fills into err. Returns 0 when fn failed (returned non-zero) and
 * said why, -1 when the child could not drop root or fn succeeded. */
int as_nobody(int (*fn)(char *err, size_t errlen), char *err, size_t errlen);

#endif
