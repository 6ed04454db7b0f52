/* detect3d.c -- contact detection of dim = 3 worlds at q_k: every shape's
 * pose and box, the 3D cell-grid broad phase (broad3d.c), the narrow phase
 * of each pair (rcc_collide3), persistent ids and warm-start impulses from
 * the last step's contact of the same key (shape_a, shape_b, feature), the
 * tangent frame following the last step's (docs/theory/spatial.md). */
#include "collide/collide.h"
#include "collide/geom3d.h"

#include <math.h>
#include <string.h>

static void broad_free(void *p)
{
    rcc_broad3_free((rcc_broad3 *)p);
    rcb_free(p);
}

static void shape_geom(const rcm_c3 *c3, const rcm_shape3 *s, rcc_shape3 *g, rcc_poly3 *poly)
{
    memset(g, 0, sizeof *g);
    if (s->kind == RC_SHAPE3_POLYHEDRON) {
        rcc_shape3_poly(c3, s, poly);
        g->poly = poly;
    }
    g->kind = s->kind;   /* rc_shape3_kind and rcc_g3_kind share their values */
    g->radius = s->radius;
    g->half_len = s->half_len;
    for (int i = 0; i < 3; i++) { g->half[i] = s->half[i]; g->normal[i] = s->normal[i]; }
}

static void shape_pose(const rc_world *w, const rcm_shape3 *s, rcc_pose3 *p)
{
    if (s->body == RC_GROUND) {
        for (int i = 0; i < 3; i++) p->p[i] = s->point[i];
        p->q[0] = 1.0; p->q[1] = p->q[2] = p->q[3] = 0.0;
        return;
    }
    const double *q = w->q + w->bodies[s->body].iq;
    for (int i = 0; i < 3; i++) p->p[i] = q[i];
    for (int i = 0; i < 4; i++) p->q[i] = q[3 + i];
    if (s->point[0] != 0.0 || s->point[1] != 0.0 || s->point[2] != 0.0) {   /* off the centre of mass */
        double r[3];
        rcb_quat_rotate(r, p->q, s->point);
        for (int i = 0; i < 3; i++) p->p[i] += r[i];
    }
}

/* the boxes (grown by margin) and the cell size: 2 x the largest finite extent */
static rc_status boxes(rc_world *w, double margin, double *cell)
{
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_reserve((void **)&c3->aabb, &c3->cap_aabb, 6 * c3->nshapes, sizeof(double)));
    double ext = 0.0;
    for (int i = 0; i < c3->nshapes; i++) {
        rcc_shape3 g;
        rcc_poly3 poly;
        rcc_pose3 p;
        shape_geom(c3, &c3->shapes[i], &g, &poly);
        shape_pose(w, &c3->shapes[i], &p);
        double *x = c3->aabb + 6 * i;
        rcc_shape3_aabb(&g, &p, x, x + 3);
        for (int k = 0; k < 3; k++) {
            x[k] -= margin;
            x[3 + k] += margin;
            if (rcb_finite(x[3 + k] - x[k])) ext = fmax(ext, x[3 + k] - x[k]);
        }
    }
    *cell = ext > 0.0 ? 2.0 * ext : 1.0;
    return RC_OK;
}

/* one narrow-phase point into a contact: key, id and warm start */
static void take_point(rc_world *w, int sa, int sb, int law, const rcc_point3 *pt, rcm_contact3 *c)
{
    rcm_c3 *c3 = w->c3;
    memset(c, 0, sizeof *c);
    c->shape_a = sa;
    c->shape_b = sb;
    c->body_a = c3->shapes[sa].body;
    c->body_b = c3->shapes[sb].body;
    c->feature = pt->feature;
    c->key = ((uint64_t)sa << 40) | ((uint64_t)sb << 16) | (uint64_t)(pt->feature & 0xffff);
    c->law = law;   /* the pair's rule, else the default law (model/rules3.c) */
    c->gN = pt->g;
    for (int i = 0; i < 3; i++) { c->pa[i] = pt->pa[i]; c->pb[i] = pt->pb[i]; c->n[i] = pt->n[i]; }
    const rcm_contact3_saved *o = rcm_c3_find_prev(c3, c->key);
    if (o) {
        c->id = o->id;
        rcc_tangent_frame_follow(c->n, o->t1, c->t1, c->t2);
        for (int i = 0; i < 3; i++) c->p[i] = o->p[i];   /* warm start (in the old frame: close for a smooth n) */
        if (o->law == law) memcpy(c->state, o->state, sizeof c->state);   /* a custom law's state follows the contact */
        else memcpy(c->state, w->laws[law].ops.state0, sizeof c->state);
    } else {
        c->id = c3->next_id++;
        memcpy(c->state, w->laws[law].ops.state0, sizeof c->state);
        for (int i = 0; i < 3; i++) { c->t1[i] = pt->t1[i]; c->t2[i] = pt->t2[i]; }
    }
}

rc_status rcc_detect3(rc_world *w, double margin)
{
    rcm_c3 *c3 = w->c3;
    c3->n = 0;
    if (!c3->broad) {
        c3->broad = rcb_malloc(sizeof(rcc_broad3));
        if (!c3->broad) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(c3->broad, 0, sizeof(rcc_broad3));
        c3->broad_free = broad_free;
    }
    rcc_broad3 *b = (rcc_broad3 *)c3->broad;
    double cell;
    RC_CHECK(boxes(w, margin, &cell));
    RC_CHECK(rcc_broad3_pairs(b, c3->nshapes, c3->aabb, cell));
    for (int k = 0; k < b->npairs; k++) {
        int sa = b->pairs[2 * k], sb = b->pairs[2 * k + 1];
        if (sa > sb) { const int t = sa; sa = sb; sb = t; }
        if (c3->shapes[sa].body == c3->shapes[sb].body) continue;   /* (two obstacles, or one body) */
        if (c3->shapes[sb].body == RC_GROUND) { const int t = sa; sa = sb; sb = t; }   /* the obstacle is A */
        const int law = rcm_world_law3_for(w, sa, sb);
        if (law == RC_NO_CONTACT) continue;
        rcc_shape3 ga, gb;
        rcc_poly3 polya, polyb;
        rcc_pose3 pa, pb;
        rcc_manifold3 m;
        shape_geom(c3, &c3->shapes[sa], &ga, &polya);
        shape_geom(c3, &c3->shapes[sb], &gb, &polyb);
        shape_pose(w, &c3->shapes[sa], &pa);
        shape_pose(w, &c3->shapes[sb], &pb);
        if (!rcc_collide3(&ga, &pa, &gb, &pb, margin, &m) || m.n == 0) continue;
        RC_CHECK(rcb_reserve((void **)&c3->c, &c3->cap_c, c3->n + m.n, sizeof(rcm_contact3)));
        for (int i = 0; i < m.n; i++) take_point(w, sa, sb, law, &m.pt[i], &c3->c[c3->n++]);
    }
    return RC_OK;
}
