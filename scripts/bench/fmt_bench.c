/* fmt_bench.c -- ns per number of the history's formatter (src/io/fmt_num.c) and of
 * snprintf("%.15g") on the values of a history (not a test; run by scripts/bench/overhead):
 *   gcc -O2 -Isrc scripts/bench/fmt_bench.c build/libricochet.a -lm -o build/fmt_bench
 *   zcat OUT/history.csv.gz | build/fmt_bench */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

size_t rco_fmt_g15(char *p, size_t room, double x);   /* internal (libricochet.a) */

int main(void)
{
    size_t cap = 1 << 20, n = 0;
    double *x = malloc(cap * sizeof *x);
    char line[1 << 16];
    if (!x || !fgets(line, sizeof line, stdin)) return 1;   /* (the header) */
    while (fgets(line, sizeof line, stdin)) {
        for (char *s = strtok(line, ",\n"); s; s = strtok(NULL, ",\n")) {
            double v = strtod(s, NULL);
            if (!isfinite(v)) continue;   /* (nan, inf: written before the formatter) */
            if (n == cap) { cap *= 2; if (!(x = realloc(x, cap * sizeof *x))) return 1; }
            x[n++] = v;
        }
    }
    char buf[64];
    size_t sum = 0;
    double best[2] = { 1e9, 1e9 };
    for (int rep = 0; rep < 5; rep++) {
        clock_t c0 = clock();
        for (size_t i = 0; i < n; i++) sum += rco_fmt_g15(buf, sizeof buf, x[i]);
        clock_t c1 = clock();
        for (size_t i = 0; i < n; i++) sum += (size_t)snprintf(buf, sizeof buf, "%.15g", x[i]);
        clock_t c2 = clock();
        double a = 1e9 * (double)(c1 - c0) / CLOCKS_PER_SEC / (double)n;
        double b = 1e9 * (double)(c2 - c1) / CLOCKS_PER_SEC / (double)n;
        if (a < best[0]) best[0] = a;
        if (b < best[1]) best[1] = b;
    }
    printf("fmt_bench: %zu numbers, best of 5: rco_fmt_g15 %.1f ns, snprintf(\"%%.15g\") %.1f ns per number (%zu bytes)\n",
           n, best[0], best[1], sum / 10);
    return 0;
}
