/* A private undo-state directory per test, so tests that change the machine
 * never touch a real session's records. */
#ifndef THRASHTOP_TEST_STATEDIR_H
#define THRASHTOP_TEST_STATEDIR_H

/* Creates /tmp/thrashtop-TAG-test-XXXXXX and points THRASHTOP_STATE_DIR at it. */
void statedir_begin(const char *tag);

/* Removes it (state, state.tmp, lock) and unsets THRASHTOP_STATE_DIR. */
void statedir_end(void);

#endif
