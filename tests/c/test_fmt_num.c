/* test_fmt_num.c -- the history's number formatter (src/io/fmt_num.c) writes
 * the same bytes as snprintf("%.15g"): on random bit patterns (every exponent,
 * subnormals, the snprintf fallback), on log-uniform numbers of the range a
 * simulation writes, on decimals with 16 and 17 significant digits (the ties
 * and near-ties of the 15-digit rounding) and at the layout's boundaries
 * (powers of ten, the switch between styles e and f at 1e-5 and 1e15). */
#define _POSIX_C_SOURCE 200809L
#include "rc_test.h"

#include <float.h>
#include <stdint.h>

size_t rco_fmt_g15(char *p, size_t room, double x);   /* src/io/fmt_num.c (internal) */

#define NUM_ROOM 32

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(rng() >> 11) * 0x1p-53; }

/* 1 if x's bytes and length match snprintf's; prints the first few mismatches */
static int same(double x, int *shown)
{
    char a[NUM_ROOM], b[NUM_ROOM];
    size_t n = rco_fmt_g15(a, sizeof a, x);
    int m = snprintf(b, sizeof b, "%.15g", x);
    if ((int)n == m && strcmp(a, b) == 0) return 1;
    if ((*shown)++ < 5) fprintf(stderr, "  %.17g: '%s' (%zu), snprintf '%s'\n", x, a, n, b);
    return 0;
}

RC_TEST(random_bit_patterns)
{
    int bad = 0, shown = 0;
    for (int i = 0; i < 1000000; i++) {
        uint64_t u = rng();
        double x;
        memcpy(&x, &u, sizeof x);
        if (isnan(x) || isinf(x)) continue;
        bad += !same(x, &shown);
    }
    CHECK(bad == 0);
}

RC_TEST(simulation_range)
{
    int bad = 0, shown = 0;
    for (int i = 0; i < 1000000; i++) {   /* |x| log-uniform in [1e-45, 1e70] */
        double x = pow(10.0, -45.0 + 115.0 * uniform());
        if (rng() & 1) x = -x;
        bad += !same(x, &shown);
    }
    CHECK(bad == 0);
}

RC_TEST(ties_and_near_ties)
{
    int bad = 0, shown = 0;
    char s[64];
    for (int i = 0; i < 1000000; i++) {   /* 15 digits then 5 or 49999/50001: around a tie */
        uint64_t d = UINT64_C(100000000000000) + rng() % UINT64_C(900000000000000);
        static const char *const tails[] = { "5", "49999", "50001", "4999999", "5000001", "" };
        int e = (int)(rng() % 80) - 40;
        snprintf(s, sizeof s, "%llu%se%d", (unsigned long long)d, tails[rng() % 6], e);
        double x = strtod(s, NULL);
        bad += !same(x, &shown);
        bad += !same(nextafter(x, 0), &shown);
        bad += !same(nextafter(x, INFINITY), &shown);
    }
    for (int i = 0; i < 200000; i++) {   /* exact ties: integers of 16 digits ending in 5 */
        uint64_t d = UINT64_C(1000000000000000) + 10 * (rng() % UINT64_C(900000000000000)) + 5;
        double x = (double)d / (double)(1u << (rng() % 8));
        bad += !same(x, &shown);
    }
    CHECK(bad == 0);
}

RC_TEST(layout_boundaries)
{
    int bad = 0, shown = 0;
    for (int k = -330; k <= 310; k++) {
        double p = pow(10.0, k);
        double xs[] = { p, nextafter(p, 0), nextafter(p, INFINITY), 9.999999999999995 * p,
                        9.9999999999999949 * p, 9.9999999999999951 * p, 1.5 * p, 123456789012345 * p };
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            bad += !same(xs[i], &shown);
            bad += !same(-xs[i], &shown);
        }
    }
    double special[] = { 0.0, -0.0, 1.0, -1.0, 0.1, 0.6, 1e-5, 9.99999999999999e-5, 1e-4, 1e15,
                         999999999999999, 999999999999999.5, 1e14, 0.0001, 12345.678,
                         DBL_MIN, DBL_MAX, DBL_TRUE_MIN, -DBL_MAX };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) bad += !same(special[i], &shown);
    CHECK(bad == 0);
}

RC_TEST_MAIN(T(random_bit_patterns), T(simulation_range), T(ties_and_near_ties), T(layout_boundaries))
