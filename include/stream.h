/* The stream between a session and its place's agent: one message a line,
 * `TAG key=value key=value ...\n`. A value is a decimal integer, a double
 * as %.17g ("nan", "inf"), or a string with every byte that is a space,
 * '%', '=', a control byte or not printable ASCII written %XX. A struct
 * travels by a table of its fields (name, offset, type): a key the reader
 * does not know is ignored and a field the line lacks is NA (-1), NAN,
 * false or "", so that either side may add fields within a protocol
 * version. The first line each way is `hello proto=N version=V`, and a
 * different proto is refused. Lines read are whole lines of at most
 * STREAM_LINE_MAX bytes; lines written wait in an outbox that drops
 * samples, never anything else, when the reader falls behind. Pure: no
 * file but the descriptor handed in. */
#ifndef THRASHTOP_STREAM_H
#define THRASHTOP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STREAM_PROTO 1
#define STREAM_LINE_MAX (64 * 1024)	/* bytes, the newline included */
#define STREAM_OUT_TICKS (1024 * 1024)	/* queued bytes past which a tick is dropped */

enum stream_type {
	ST_I64,		/* int64_t */
	ST_U64,		/* uint64_t */
	ST_LL,		/* long long */
	ST_LONG,	/* long */
	ST_INT,		/* int (and pid_t) */
	ST_DBL,		/* double */
	ST_BOOL,	/* bool */
	ST_CHAR,	/* char, one byte as a number */
	ST_STR,		/* char[size], NUL-terminated */
};

/* One field: key name, or name.I for element I of an array of n. */
struct stream_field {
	const char *name;
	size_t off;
	enum stream_type type;
	int n;		/* array length; 0 or 1: a scalar */
	size_t size;	/* ST_STR: the buffer's size */
};

#define STREAM_F(type_, field, st) { #field, offsetof(type_, field), st, 0, 0 }
#define STREAM_A(type_, field, st, n_) { #field, offsetof(type_, field), st, n_, 0 }
#define STREAM_S(type_, field) { #field, offsetof(type_, field), ST_STR, 0, \
				 sizeof(((type_ *)0)->field) }

/* A message being written. */
struct stream_msg {
	char *buf;
	size_t len, cap;
	bool bad;		/* out of memory: the message is lost */
};

void stream_msg_begin(struct stream_msg *m, const char *tag);
void stream_put_i64(struct stream_msg *m, const char *key, int64_t v);
void stream_put_dbl(struct stream_msg *m, const char *key, double v);
void stream_put_str(struct stream_msg *m, const char *key, const char *v);
/* The string of n bytes, which may hold NULs. */
void stream_put_mem(struct stream_msg *m, const char *key, const void *v, size_t n);
/* Every field of obj by table t, each key prefixed with prefix (may be ""). */
void stream_put_fields(struct stream_msg *m, const char *prefix, const struct stream_field *t,
		       int nt, const void *obj);
/* Ends the line: 0, or -1 when out of memory or over STREAM_LINE_MAX. */
int stream_msg_end(struct stream_msg *m);
/* Appends src, ended, to dst: several lines that go together. */
void stream_msg_cat(struct stream_msg *dst, const struct stream_msg *src);
void stream_msg_free(struct stream_msg *m);

/* A line read: its tag and its pairs, the values unescaped in place. */
struct stream_kv {
	const char *key;
	char *val;
	size_t len;		/* the value's bytes (a string may hold NULs) */
};

struct stream_line {
	const char *tag;
	int n, cap;
	struct stream_kv *kv;
};

/* Splits line (modified in place; it must outlive l's use). 0, or -1 with
 * errno: EINVAL for a pair without '=' or a bad escape, ENOMEM. */
int stream_parse(char *line, struct stream_line *l);
void stream_line_free(struct stream_line *l);

/* The first value of key, NULL when absent. */
const char *stream_get(const struct stream_line *l, const char *key);
int64_t stream_get_i64(const struct stream_line *l, const char *key, int64_t def);
double stream_get_dbl(const struct stream_line *l, const char *key);	/* NAN absent */
/* Every field of obj NA, NAN, false or "", then those the line has. */
void stream_get_fields(const struct stream_line *l, const char *prefix,
		       const struct stream_field *t, int nt, void *obj);

/* `hello proto=N version=V`, and the check of the other side's: 0, or -1
 * with err naming both versions. */
int stream_hello(struct stream_msg *m, const char *version);
int stream_hello_check(const struct stream_line *l, const char *version, const char *other,
		       char *err, size_t errlen);

/* Bytes read into whole lines. */
struct stream_in {
	char *buf;
	size_t len, cap, start;	/* buf[start..len) not yet returned */
	bool eof;
};

/* Reads what fd has (non-blocking or not): bytes read, 0 at the end of
 * the stream (eof set), -1 with errno (EAGAIN: nothing now). */
ssize_t stream_in_read(struct stream_in *in, int fd);
/* Appends n bytes. 0, or -1 when out of memory. */
int stream_in_feed(struct stream_in *in, const void *data, size_t n);
/* The next whole line without its newline, valid until the next call;
 * NULL when none is whole (errno 0), or when the line waiting is over
 * STREAM_LINE_MAX (errno EMSGSIZE: the stream cannot go on). */
char *stream_in_next(struct stream_in *in);
void stream_in_free(struct stream_in *in);

/* Lines waiting to be written. */
struct stream_out {
	char *buf;
	size_t len, cap, off;	/* buf[off..len) unwritten */
	int64_t drops;		/* ticks dropped so far */
	bool said;		/* drops was queued since the last drop */
};

/* Queues a line (or several). A tick is dropped, the new one, when
 * STREAM_OUT_TICKS bytes wait already, and counted; before the next tick
 * that is queued, `drops n=TOTAL` is. Anything else is always queued.
 * 1 queued, 0 dropped, -1 out of memory. */
int stream_out_put(struct stream_out *o, const char *data, size_t n, bool tick);
/* Writes what it can (fd non-blocking): 0 when nothing is left, 1 when
 * some is, -1 with errno on a write error. */
int stream_out_flush(struct stream_out *o, int fd);
bool stream_out_pending(const struct stream_out *o);
void stream_out_free(struct stream_out *o);

#endif
