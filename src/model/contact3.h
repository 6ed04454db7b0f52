/* model/contact3.h -- the shapes and contacts of dim = 3 worlds (contact3.c;
 * detection collide/detect3d.c, the step integrate/contacts3.c, the solver
 * nonsmooth/nsgs3.c). A separate store from the planar shapes and contacts:
 * the planar hot path stays as it was (docs/architecture.md). */
#ifndef RC_MODEL_CONTACT3_H
#define RC_MODEL_CONTACT3_H

#include <stdint.h>

/* A shape of a spatial body (centred at its centre of mass, along its
 * principal axes) or a static obstacle (body RC_GROUND, at point, world axes). */
typedef struct rcm_shape3 {
    int body;               /* body id or RC_GROUND                          */
    int kind;               /* rc_shape3_kind                                */
    double radius, half_len, half[3];
    double point[3];        /* RC_GROUND: position; plane: a point on it     */
    double normal[3];       /* plane: outward unit normal (world)            */
    double bound;           /* radius of the bounding sphere (not planes)   */
    int group;              /* contact group (rules by groups, rules3.c)     */
    /* polyhedron: nv vertices, nf faces, ne edges, nl loop entries, its
     * doubles at rcm_c3.pd + pd (v 3 nv, plane 4 nf) and ints at rcm_c3.pi
     * + pi (fstart nf + 1, loop nl, ledge nl, edge 4 ne) */
    int nv, nf, ne, nl, pd, pi;
} rcm_shape3;

/* A 3D contact: directions (N, T1, T2), rows per side (u = Ha va + Hb vb),
 * W = H kappa Mhat^-1 H^T (3x3 row-major), the law's shift, the impulse p
 * and the velocity u. Only the rows' rotational parts are stored (Ra, Rb:
 * R^T (r x d) for d = n, t1, t2, signed as Ha, Hb); their translational
 * parts are -d (A) and d (B): rcm_contact3_rows rebuilds the 6-wide rows.
 * kappa Mhat^-1 H^T is not stored either: it is rebuilt from the rows, the
 * body's 1/m, its rotational block Ainv (rigid3d.h) and rcm_c3.kappa
 * (rcn_contact3_mh, nsgs3.c). 432 bytes a contact fewer (issue 14). */
typedef struct rcm_contact3 {
    uint64_t key;           /* shape_a, shape_b, feature                     */
    int id, shape_a, shape_b, body_a, body_b, law, feature, active;
    double pa[3], pb[3], n[3], t1[3], t2[3], gN;
    double Ra[3][3], Rb[3][3];
    double W[9], shift[3], p[3], u[3], uk[3];
    double Winv[9];         /* W^-1 (the stick case of the local solve)     */
    int winv_ok;            /* 0: W singular, Winv not set                   */
    /* laws without a closed form (custom laws, nonsmooth/law3.c): u_old as
     * the law sees it, its per-contact state (kept by key), the generic
     * solver's last Jacobian */
    double uo[3], state[RC_LAW_MAX_STATE], J[9];
    int jvalid;
} rcm_contact3;

/* the 6-wide rows of side B (b = 1: Hb) or A (b = 0: Ha) of contact c */
static inline void rcm_contact3_rows(const rcm_contact3 *c, int b, double H[3][6])
{
    const double *dirs[3] = { c->n, c->t1, c->t2 };
    const double (*R)[3] = b ? c->Rb : c->Ra;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++) {
            H[k][j] = b ? dirs[k][j] : -dirs[k][j];
            H[k][3 + j] = R[k][j];
        }
}

/* The drilling row of a Coulomb--Contensou contact (law radius > 0;
 * integrate/contacts3_drill.c, nonsmooth/contensou.c): kept beside the
 * contact of the same index in rcm_c3.d (and by key in dprev) so that plain
 * 3-row contacts keep their layout. Row u_D = s n.(omega_b - omega_a),
 * s = 3 pi R / 16, in body-frame angular velocities (0, s R^T n); W4 the
 * 4x4 Delassus block (N, T1, T2, D), row-major. */
typedef struct rcm_drill3 {
    uint64_t key;
    int on;                 /* this contact carries the drilling row         */
    double ha[6], hb[6], mha[6], mhb[6];
    double W4[16], shift, p, u, uk;
} rcm_drill3;

/* What the next step needs of a contact: its key (to match), id, first
 * tangent (the frame follows it), impulse (warm start), and its law with the
 * law's per-contact state (a custom law's state follows the contact). 136
 * bytes where a full rcm_contact3 takes about 1 KB: the last step's list is
 * kept in this form. */
typedef struct rcm_contact3_saved {
    uint64_t key;
    int id, law;
    double t1[3], p[3];
    double state[RC_LAW_MAX_STATE];
} rcm_contact3_saved;

typedef struct rcm_c3 {
    rcm_shape3 *shapes; int nshapes, cap_shapes;
    rcm_contact3 *c; int n, cap_c;          /* this step's contacts            */
    rcm_contact3_saved *prev; int nprev, cap_prev; /* the last step's, sorted by key */
    double *aabb; int cap_aabb;
    void *broad;                            /* collide's broad-phase buffers   */
    void (*broad_free)(void *);
    int next_id, nactive;
    rcm_drill3 *d; int cap_d;               /* drilling rows (index of c), or NULL */
    rcm_drill3 *dprev; int ndprev, cap_dprev; /* the last step's, sorted by key   */
    int ndrill;                             /* this step's active drilling rows  */
    int worst1;                             /* 1 + index of the last solve's contact of the
                                               largest residual; 0: none (nonsmooth/nsgs3.c) */
    double worst_res;                       /* its natural-map residual (absolute) */
    long solves;                            /* the last solve's one-contact solves (nsgs3.c) */
    int shared;                             /* the last solve's sweeps ran on a thread team (nsgs3.c) */
    double kappa;                           /* this step's factor of Mhat^-1 H^T (contacts3.c) */
    double *pd; int npd, cap_pd;            /* polyhedra's doubles (rcm_shape3.pd) */
    int *pi; int npi, cap_pi;               /* polyhedra's ints (rcm_shape3.pi)    */
} rcm_c3;

/* rules3.c: the law of the 3D shape pair (sa, sb) by the contact rules
 * (body rules first, then group rules, the last matching rule of a kind),
 * else the default law; RC_NO_CONTACT switches the pair off */
int rcm_world_law3_for(const rc_world *w, int sa, int sb);

/* free the store (world free: rcm_rigid3d_free) */
void rcm_c3_free(rc_world *w);
/* the last step's contact of key k (binary search in prev), or NULL */
const rcm_contact3_saved *rcm_c3_find_prev(const rcm_c3 *c3, uint64_t k);
/* the last step's drilling row of key k, or NULL */
const rcm_drill3 *rcm_c3_find_dprev(const rcm_c3 *c3, uint64_t k);
/* the contacts become the last step's (sorted by key; grows prev) */
rc_status rcm_c3_save(rc_world *w);

#endif /* RC_MODEL_CONTACT3_H */
