/* rc_test.h -- a plain C test runner: RC_TEST(name) functions, CHECK macros,
 * and a main() that runs them and prints "N passed, N failed". */
#ifndef RC_TEST_H
#define RC_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ricochet.h"

typedef void (*rc_test_fn)(int *failed);
typedef struct { const char *name; rc_test_fn fn; } rc_test_case;

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
    (*failed)++; } } while (0)
#define CHECK_NEAR(a, b, tol) do { double ca_ = (a), cb_ = (b); \
    if (!(fabs(ca_ - cb_) <= (tol))) { \
    fprintf(stderr, "  %s:%d: |%s - %s| = |%.17g - %.17g| = %.3g > %.3g\n", __FILE__, __LINE__, \
            #a, #b, ca_, cb_, fabs(ca_ - cb_), (double)(tol)); (*failed)++; } } while (0)
#define CHECK_OK(expr) do { rc_status cs_ = (expr); if (cs_ != RC_OK) { \
    fprintf(stderr, "  %s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr, \
            rc_status_name(cs_), rc_last_error()); (*failed)++; } } while (0)

/* In helpers returning rc_status: propagate a failure with its message. */
#define RC_CHECK_API(expr) do { rc_status cs_ = (expr); if (cs_ != RC_OK) { \
    fprintf(stderr, "  %s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr, \
            rc_status_name(cs_), rc_last_error()); return cs_; } } while (0)

#define RC_TEST(name) static void name(int *failed)

static inline int rc_test_run(const rc_test_case *cases, int n)
{
    int passed = 0, nfailed = 0;
    for (int i = 0; i < n; i++) {
        int failed = 0;
        cases[i].fn(&failed);
        printf("%s %s\n", failed ? "FAIL" : "ok  ", cases[i].name);
        if (failed) nfailed++; else passed++;
    }
    printf("%d passed, %d failed\n", passed, nfailed);
    return nfailed ? 1 : 0;
}
#define RC_TEST_MAIN(...) int main(void) { \
    const rc_test_case cases_[] = { __VA_ARGS__ }; \
    return rc_test_run(cases_, (int)(sizeof cases_ / sizeof cases_[0])); }
#define T(fn) { #fn, fn }
#endif
