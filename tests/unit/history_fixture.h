/* The history tests' fixtures (history_test.c, histschema_test.c): a
 * private directory removed at exit, records with every part filled, the
 * check that one read back is the same, and the file read and written
 * past the history, as another release or process would. */
#ifndef THRASHTOP_TEST_HISTORY_FIXTURE_H
#define THRASHTOP_TEST_HISTORY_FIXTURE_H

#include <stddef.h>

#include "history.h"

/* Where the tests make their directories: tmpfs (/dev/shm) where there is
 * one, /tmp else. They prove what a history holds, not that it reaches a
 * disk: there each commit's syncs took 10 ms. */
const char *tbase(void);
/* The directory, made on first use. */
const char *tdir(void);
/* name in it, into buf, with no file left there by an earlier test. */
void tpath(char *buf, size_t len, const char *name);
/* The history at path and its -wal and -shm. */
void rm_db(const char *path);

/* A record with every part filled; i varies the content. */
void fixture(struct run_record *r, int i);
/* Each series kept to within half its quantum, gaps as gaps. */
void check_series(const struct run_record *a, const struct run_record *b);
/* Every scalar field, the details and the series must read back equal. */
void check_same(const struct run_record *a, const struct run_record *b);

/* The first column of sql's first row on the file at path, or -1. */
int raw_int(const char *path, const char *sql);
/* sql run on the file at path: 0, or -1. */
int raw_exec(const char *path, const char *sql);

#endif
