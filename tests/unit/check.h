/* A minimal test harness: TEST() registers a function at load time, CHECK*
 * record failures with their location, and the runner prints one
 * PASS/FAIL line per test for tests/run.sh to count. */
#ifndef THRASHTOP_CHECK_H
#define THRASHTOP_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

void t_register(const char *name, void (*fn)(void));
void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)                                                      \
	static void name(void);                                         \
	__attribute__((constructor)) static void reg_##name(void)      \
	{ t_register(#name, name); }                                    \
	static void name(void)

#define CHECK(c)                                                        \
	do { if (!(c)) t_fail(__FILE__, __LINE__, "%s", #c); } while (0)

#define CHECK_INT(a, b)                                                 \
	do { long long a_ = (long long)(a), b_ = (long long)(b);       \
	     if (a_ != b_) t_fail(__FILE__, __LINE__, "%s == %lld, want %lld", \
				  #a, a_, b_); } while (0)

#define CHECK_STR(a, b)                                                 \
	do { const char *a_ = (a), *b_ = (b);                          \
	     if (!a_ || !b_ || strcmp(a_, b_))                           \
		     t_fail(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"", \
			    #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)

#define CHECK_NEAR(a, b, eps)                                           \
	do { double a_ = (a), b_ = (b);                                 \
	     if (!(fabs(a_ - b_) <= (eps)))                              \
		     t_fail(__FILE__, __LINE__, "%s == %.10g, want %.10g", \
			    #a, a_, b_); } while (0)

#endif
