/* fmt_num.c -- "%.15g" without printf: the history's numbers (history.csv.gz)
 * are the same bytes snprintf(p, room, "%.15g", x) writes, about 10 times
 * faster (glibc's printf formats through multi-precision integers).
 *
 * x (finite, nonzero) = s 10^(e - 14) with s in [1e14, 1e15): s is computed in
 * x87 extended precision (64-bit significand) as |x| times a tabulated
 * 10^(14 - e), with two roundings of relative size 2^-64 (the power's, the
 * product's), so |s - s_exact| <= 2^-13 and the fraction of s is known to 2^-13. The 15 digits are s rounded to nearest; whenever the
 * fraction is within 2^-10 of one half (a possible tie or a rounding too
 * close to call: about 2 numbers in 1 000) or 10^(14 - e) is out of that
 * range (|x| outside about [1e-40, 1e68]), or the platform's long double is
 * not the 64-bit-significand format, snprintf formats the number. Then the
 * digits are laid out as %g does (C11 7.21.6.1): style e when e < -4 or
 * e >= 15, else style f, trailing zeros and a trailing point removed, an
 * exponent of at least two digits. tests/c/test_fmt_num.c checks the bytes
 * against snprintf on millions of doubles. */
#include "io/output_impl.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static size_t rc__libc_g15(char *p, size_t room, double x)
{
    int n = snprintf(p, room, "%.15g", x);
    return n < 0 ? 0 : (size_t)n;
}

#if LDBL_MANT_DIG == 64

/* 10^k for k = -54..54, each rounded to the 64-bit significand (exact for
 * 0 <= k <= 27): a 10^k is one multiplication, two roundings of relative
 * size 2^-64 */
static const long double rc__p10[109] = {
    1e-54L, 1e-53L, 1e-52L, 1e-51L, 1e-50L, 1e-49L, 1e-48L, 1e-47L, 1e-46L,
    1e-45L, 1e-44L, 1e-43L, 1e-42L, 1e-41L, 1e-40L, 1e-39L, 1e-38L, 1e-37L,
    1e-36L, 1e-35L, 1e-34L, 1e-33L, 1e-32L, 1e-31L, 1e-30L, 1e-29L, 1e-28L,
    1e-27L, 1e-26L, 1e-25L, 1e-24L, 1e-23L, 1e-22L, 1e-21L, 1e-20L, 1e-19L,
    1e-18L, 1e-17L, 1e-16L, 1e-15L, 1e-14L, 1e-13L, 1e-12L, 1e-11L, 1e-10L,
    1e-9L, 1e-8L, 1e-7L, 1e-6L, 1e-5L, 1e-4L, 1e-3L, 1e-2L, 1e-1L,
    1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L,
    1e9L, 1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L,
    1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L,
    1e27L, 1e28L, 1e29L, 1e30L, 1e31L, 1e32L, 1e33L, 1e34L, 1e35L,
    1e36L, 1e37L, 1e38L, 1e39L, 1e40L, 1e41L, 1e42L, 1e43L, 1e44L,
    1e45L, 1e46L, 1e47L, 1e48L, 1e49L, 1e50L, 1e51L, 1e52L, 1e53L,
    1e54L,
};

/* floor(n log10 2) for |n| <= 1650 (78913 / 2^18, as Ryu's log10Pow2) */
static int rc__log10_pow2(int n)
{
    if (n >= 0) return (int)(((uint32_t)n * 78913u) >> 18);
    return -(int)(((uint32_t)-n * 78913u) >> 18) - 1;   /* n log10 2 is never an integer */
}

static const char rc__pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* the 15 digits of d (< 10^15) into b[0..14] */
static void rc__digits15(char *b, uint64_t d)
{
    b[14] = (char)('0' + d % 10);
    d /= 10;
    for (int i = 12; i >= 0; i -= 2) {
        unsigned r = (unsigned)(d % 100);
        d /= 100;
        b[i] = rc__pairs[2 * r];
        b[i + 1] = rc__pairs[2 * r + 1];
    }
}

/* The digits (nz significant ones, no trailing zero) and decimal exponent e
 * laid out as %g with precision 15; returns the length written at p. */
static size_t rc__layout(char *p, const char *dig, int nz, int e)
{
    char *q = p;
    if (e < -4 || e >= 15) {
        *q++ = dig[0];
        if (nz > 1) { *q++ = '.'; memcpy(q, dig + 1, (size_t)nz - 1); q += nz - 1; }
        *q++ = 'e';
        *q++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;   /* |e| <= 68 here: two digits */
        *q++ = (char)('0' + ae / 10);
        *q++ = (char)('0' + ae % 10);
    } else if (e >= 0) {
        memcpy(q, dig, (size_t)e + 1);
        q += e + 1;
        if (nz > e + 1) { *q++ = '.'; memcpy(q, dig + e + 1, (size_t)(nz - e - 1)); q += nz - e - 1; }
    } else {
        *q++ = '0';
        *q++ = '.';
        for (int i = 0; i < -e - 1; i++) *q++ = '0';
        memcpy(q, dig, (size_t)nz);
        q += nz;
    }
    *q = '\0';
    return (size_t)(q - p);
}

size_t rco_fmt_g15(char *p, size_t room, double x)
{
    if (room < RC_OUT_NUM_MAX || !isfinite(x)) return rc__libc_g15(p, room, x);
    if (x == 0.0) {   /* "0" or "-0" */
        size_t n = 0;
        if (signbit(x)) p[n++] = '-';
        p[n++] = '0';
        p[n] = '\0';
        return n;
    }
    double a = fabs(x);
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int e2 = (int)(bits >> 52) - 1022;      /* a in [2^(e2-1), 2^e2) for a normal a */
    int e = rc__log10_pow2(e2 - 1);         /* floor(log10 a) or one less */
    if (14 - e > 54 || 14 - e < -54 + 1) return rc__libc_g15(p, room, x);   /* (subnormals too) */
    long double s = (long double)a * rc__p10[14 - e + 54];
    if (s >= 1e15L) { e++; s = (long double)a * rc__p10[14 - e + 54]; }
    if (s < 1e14L || s >= 1e15L) return rc__libc_g15(p, room, x);
    uint64_t d = (uint64_t)s;
    long double f = s - (long double)d;                  /* exact */
    if (fabsl(f - 0.5L) <= 0x1p-10L) return rc__libc_g15(p, room, x);
    if (f > 0.5L) d++;
    if (d == UINT64_C(1000000000000000)) { d = UINT64_C(100000000000000); e++; }
    char dig[15];
    rc__digits15(dig, d);
    int nz = 15;
    while (dig[nz - 1] == '0') nz--;
    if (x < 0) { *p = '-'; return 1 + rc__layout(p + 1, dig, nz, e); }
    return rc__layout(p, dig, nz, e);
}

#else   /* no x87 extended precision: the C library formats every number */

size_t rco_fmt_g15(char *p, size_t room, double x) { return rc__libc_g15(p, room, x); }

#endif
