/* output_c3.c -- the history columns of the 3D contacts of a dim = 3 world
 * (output.c; contacts model/contact3.h).
 *
 * A planar world names its contacts with rules (NAME.gN, ...); a dim = 3 world
 * has no rules yet, so the columns follow from the named bodies: every pair of
 * 3D shapes of which one belongs to a named body and the other to another
 * named body or to the ground (an obstacle) gets K column groups, K the most
 * points its narrow phase gives (rcc_collide3: 1 for a pair with a sphere, 2
 * capsule-plane, capsule-capsule and capsule-box, 4 box-plane; box-box and
 * plane-plane have no contact and no columns). The pair is named A/B after its
 * sides in the order the detection gives them (the obstacle is A, else the
 * lower shape id), a side by its body's name (NAME[i] when the body has
 * several shapes, i its shape's rank from 1) or, for an obstacle, by its kind
 * and shape id (plane0, sphere3). With K > 1 the groups are A/B#1 .. A/B#K.
 * A group's columns are
 *     feature,gN,uN,uT1,uT2,pN,pT1,pT2
 * (the narrow phase's feature id, the gap, the relative velocity and the
 * impulse in the contact's (N, T1, T2) frame, as w:contacts3() gives them)
 * and, for a pair whose law is a Coulomb--Contensou law (radius > 0) when the
 * output opens, uD,pD (the drilling row u_D and impulse p_D; 0 while the
 * contact is not active):
 * after each step the pair's contacts, ordered by feature, fill groups 1, 2,
 * ...; the groups left over (a pair apart) hold nan. The impulses are p, not
 * p/h (as the planar C.pN). Rows allocate nothing (the slots are found by a
 * binary search in the pairs sorted at open). */
#include "io/output_impl.h"
#include "model/contact3.h"

#include <stdio.h>

#define RCO_C3_NCOL 8    /* a group's columns (a Coulomb--Contensou pair's: + uD, pD) */
#define RCO_C3_NMAX 10
static const char *const c3_cols[RCO_C3_NMAX] = { "feature", "gN", "uN", "uT1", "uT2", "pN", "pT1", "pT2", "uD", "pD" };

struct rco_c3 {
    int npairs, nslots;
    uint64_t *pair;     /* (shape_a << 32 | shape_b), sorted */
    int *first, *k;     /* a pair's first slot, its number of slots */
    int *nc;            /* a pair's columns per slot: 8, 10 with a drilling row */
    double *val;        /* RCO_C3_NMAX per slot, this row's */
    int *fill;          /* per pair: slots filled this row */
};

/* the most points the narrow phase gives for the kinds a, b (0: none) */
static int max_points(int a, int b)
{
    if (a > b) { const int t = a; a = b; b = t; }
    if (a == RC_SHAPE3_SPHERE || b == RC_SHAPE3_SPHERE) return a == RC_SHAPE3_PLANE && b == RC_SHAPE3_PLANE ? 0 : 1;
    if (a == RC_SHAPE3_PLANE && b == RC_SHAPE3_BOX) return 4;
    if (b == RC_SHAPE3_POLYHEDRON) return a == RC_SHAPE3_SPHERE ? 1 : a == RC_SHAPE3_CAPSULE ? 3 : 4;
    if (a == RC_SHAPE3_BOX && b == RC_SHAPE3_BOX) return 0;
    if (a == RC_SHAPE3_PLANE && b == RC_SHAPE3_PLANE) return 0;
    return 2;   /* capsule with plane, capsule, box */
}

static int named_or_ground(rc_world *w, int body)
{
    unsigned gen;
    if (body == RC_GROUND) return 1;
    const char *name = rcm_body_column(w, body, &gen);
    return name && name[0];
}

/* sides in the detection's order (collide/detect3d.c): the obstacle is A, else the lower id */
static int pair_of(const rcm_c3 *c3, int i, int j, int *sa, int *sb)
{
    if (c3->shapes[i].body == c3->shapes[j].body) return 0;
    *sa = i < j ? i : j;
    *sb = i < j ? j : i;
    if (c3->shapes[*sb].body == RC_GROUND) { const int t = *sa; *sa = *sb; *sb = t; }
    return 1;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void rco_c3_free(struct rc_output *o)
{
    struct rco_c3 *s = o->c3;
    if (!s) return;
    rcb_free(s->pair); rcb_free(s->first); rcb_free(s->k); rcb_free(s->nc); rcb_free(s->val); rcb_free(s->fill);
    rcb_free(s);
    o->c3 = NULL;
}

/* the pairs with columns (pass 0 counts, pass 1 fills s->pair) */
static int list_pairs(rc_world *w, struct rco_c3 *s, int pass)
{
    const rcm_c3 *c3 = w->c3;
    int n = 0;
    for (int i = 0; i < c3->nshapes; i++)
        for (int j = i + 1; j < c3->nshapes; j++) {
            int sa, sb;
            if (!pair_of(c3, i, j, &sa, &sb)) continue;
            const int ba = c3->shapes[sa].body, bb = c3->shapes[sb].body;
            if (!named_or_ground(w, ba) || !named_or_ground(w, bb)) continue;
            if (max_points(c3->shapes[sa].kind, c3->shapes[sb].kind) == 0) continue;
            if (pass) s->pair[n] = (uint64_t)sa << 32 | (uint64_t)sb;
            n++;
        }
    return n;
}

/* The slots of a dim = 3 world (none otherwise): o->c3, o->nc3cols. */
rc_status rco_c3_open(struct rc_output *o, rc_world *w)
{
    o->nc3cols = 0;
    if (!w->c3) return RC_OK;
    struct rco_c3 *s = rcb_malloc(sizeof *s);
    if (!s) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memset(s, 0, sizeof *s);
    o->c3 = s;
    s->npairs = list_pairs(w, s, 0);
    if (s->npairs == 0) return RC_OK;
    const size_t np = (size_t)s->npairs;
    s->pair = rcb_malloc(np * sizeof *s->pair);
    s->first = rcb_malloc(np * sizeof(int));
    s->k = rcb_malloc(np * sizeof(int));
    s->fill = rcb_malloc(np * sizeof(int));
    s->nc = rcb_malloc(np * sizeof(int));
    if (!s->pair || !s->first || !s->k || !s->fill || !s->nc) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    list_pairs(w, s, 1);
    qsort(s->pair, np, sizeof *s->pair, cmp_u64);
    const rcm_c3 *c3 = w->c3;
    for (int p = 0; p < s->npairs; p++) {
        const int sa = (int)(s->pair[p] >> 32), sb = (int)(s->pair[p] & 0xffffffffu);
        s->first[p] = s->nslots;
        s->k[p] = max_points(c3->shapes[sa].kind, c3->shapes[sb].kind);
        s->nslots += s->k[p];
        /* the pair's law now (rules and default law as they are at open) */
        const int law = rcm_world_law3_for(w, sa, sb);
        s->nc[p] = law >= 0 && law < w->nlaws && w->laws[law].def.radius > 0.0 ? RCO_C3_NMAX : RCO_C3_NCOL;
        o->nc3cols += s->k[p] * s->nc[p];
    }
    s->val = rcb_malloc((size_t)s->nslots * RCO_C3_NMAX * sizeof(double));
    if (!s->val) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    return RC_OK;
}

/* a side's name: NAME, NAME[i] (a body with several shapes), KINDid (an
 * obstacle); the body's name, or NULL for an obstacle, and the suffix */
static const char *side_name(rc_world *w, int shape, char *suffix, size_t room)
{
    static const char *const kinds[5] = { "plane", "sphere", "capsule", "box", "polyhedron" };
    const rcm_c3 *c3 = w->c3;
    const int body = c3->shapes[shape].body;
    suffix[0] = '\0';
    if (body == RC_GROUND) { snprintf(suffix, room, "%s%d", kinds[c3->shapes[shape].kind % 5], shape); return ""; }
    unsigned gen;
    int rank = 0, count = 0;
    for (int i = 0; i < c3->nshapes; i++)
        if (c3->shapes[i].body == body) { count++; if (i <= shape) rank++; }
    if (count > 1) snprintf(suffix, room, "[%d]", rank);
    return rcm_body_column(w, body, &gen);
}

/* append the column names to o->cols (o->ncols grows) */
rc_status rco_c3_names(struct rc_output *o, rc_world *w)
{
    const struct rco_c3 *s = o->c3;
    if (!s) return RC_OK;
    for (int p = 0; p < s->npairs; p++) {
        char sa[32], sb[32], tail[48];
        const char *na = side_name(w, (int)(s->pair[p] >> 32), sa, sizeof sa);
        const char *nb = side_name(w, (int)(s->pair[p] & 0xffffffffu), sb, sizeof sb);
        const size_t room = strlen(na) + strlen(nb) + sizeof sa + sizeof sb + sizeof tail + 2;
        for (int k = 0; k < s->k[p]; k++)
            for (int c = 0; c < s->nc[p]; c++) {
                char *col = rcb_malloc(room);
                if (!col) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
                if (s->k[p] > 1) snprintf(tail, sizeof tail, "#%d.%s", k + 1, c3_cols[c]);
                else snprintf(tail, sizeof tail, ".%s", c3_cols[c]);
                snprintf(col, room, "%s%s/%s%s%s", na, sa, nb, sb, tail);
                o->cols[o->ncols++] = col;
            }
    }
    return RC_OK;
}

static int find_pair(const struct rco_c3 *s, uint64_t key)
{
    int lo = 0, hi = s->npairs - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (s->pair[mid] == key) return mid;
        if (s->pair[mid] < key) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* this row's values after p (returns the new end) */
double *rco_c3_row(struct rc_output *o, rc_world *w, double *x)
{
    struct rco_c3 *s = o->c3;
    if (!s || s->nslots == 0) return x;
    for (int i = 0; i < s->nslots * RCO_C3_NMAX; i++) s->val[i] = NAN;
    for (int i = 0; i < s->npairs; i++) s->fill[i] = 0;
    const rcm_c3 *c3 = w->c3;
    for (int i = 0; c3 && i < c3->n; i++) {
        const rcm_contact3 *c = &c3->c[i];
        const int pr = find_pair(s, (uint64_t)c->shape_a << 32 | (uint64_t)c->shape_b);
        if (pr < 0 || s->fill[pr] >= s->k[pr]) continue;
        /* insert by feature among the pair's filled slots */
        double *base = s->val + (size_t)s->first[pr] * RCO_C3_NMAX;
        int j = s->fill[pr]++;
        while (j > 0 && base[(j - 1) * RCO_C3_NMAX] > (double)c->feature) {
            memcpy(base + j * RCO_C3_NMAX, base + (j - 1) * RCO_C3_NMAX, RCO_C3_NMAX * sizeof(double));
            j--;
        }
        /* the drilling row (0 while the contact is not active) */
        const rcm_drill3 *d = c3->d && c3->d[i].on ? &c3->d[i] : NULL;
        const double v[RCO_C3_NMAX] = { (double)c->feature, c->gN, c->u[0], c->u[1], c->u[2], c->p[0], c->p[1], c->p[2],
                                        d ? d->u : 0.0, d ? d->p : 0.0 };
        memcpy(base + j * RCO_C3_NMAX, v, sizeof v);
    }
    for (int pr = 0; pr < s->npairs; pr++)
        for (int k = 0; k < s->k[pr]; k++)
            for (int c = 0; c < s->nc[pr]; c++)
                *x++ = s->val[((size_t)s->first[pr] + (size_t)k) * RCO_C3_NMAX + (size_t)c];
    return x;
}
