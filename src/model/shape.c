/* shape.c -- shapes: checks, creation, definitions; potential contacts of a pair. */
#include "model/model.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---------------------------------------------------------------- shapes */


/* The vertices of a polygon: counter-clockwise (positive signed area),
 * strictly convex at every vertex, winding once. */
static rc_status check_polygon(const rc_shape_def *d, const char *what)
{
    char got[2][RCB_SHOW_SIZE];
    const int n = d->nvert;
    if (n < 3 || n > RC_MAX_POLYGON_VERTICES)
        return rc_set_error(RC_ERR_ARG, "%s: 'vertices' must have 3 to %d points (got %d)", what, RC_MAX_POLYGON_VERTICES, n);
    for (int i = 0; i < n; i++)
        if (!rcb_finite(d->vert[i][0]) || !rcb_finite(d->vert[i][1]))
            return rc_set_error(RC_ERR_ARG, "%s: 'vertices[%d]' is not finite", what, i + 1);
    double area = 0.0;
    for (int i = 0; i < n; i++) {
        const double *a = d->vert[i], *b = d->vert[(i + 1) % n];
        area = area + (a[0] * b[1] - b[0] * a[1]);
    }
    if (!(area > 0.0))
        return rc_set_error(RC_ERR_ARG, "%s: 'vertices' must be in counter-clockwise order (signed area %s <= 0)",
                            what, rcb_show(got[0], area / 2));
    double turning = 0.0;
    for (int i = 0; i < n; i++) {
        const double *a = d->vert[i], *b = d->vert[(i + 1) % n], *c = d->vert[(i + 2) % n];
        double e1x = b[0] - a[0], e1y = b[1] - a[1], e2x = c[0] - b[0], e2y = c[1] - b[1];
        double cross = e1x * e2y - e1y * e2x;
        if (!(cross > 0.0))
            return rc_set_error(RC_ERR_ARG, "%s: 'vertices' must form a strictly convex polygon (not convex at vertex %d {%s, %s})",
                                what, (i + 1) % n + 1, rcb_show(got[0], b[0]), rcb_show(got[1], b[1]));
        turning += atan2(cross, e1x * e2x + e1y * e2y);
    }
    if (fabs(turning - 2.0 * M_PI) > 1e-6)   /* a star turns more than once */
        return rc_set_error(RC_ERR_ARG, "%s: 'vertices' must form a simple convex polygon (the boundary winds %d times)",
                            what, (int)floor(turning / (2.0 * M_PI) + 0.5));
    return RC_OK;
}

/* The checks of a shape's definition that do not depend on the world; a
 * half-plane's normal is normalised. what: the prefix of the messages (NULL:
 * the shape type's name). */
static rc_status check_shape_def(rc_shape_def *d, const char *what)
{
    char got[RCB_SHOW_SIZE];
    switch (d->type) {
    case RC_SHAPE_DISK:
        if (!rcb_finite(d->radius) || d->radius <= 0.0)
            return rc_set_error(RC_ERR_ARG, "%s: 'radius' must be > 0 (got %s)", what ? what : "disk", rcb_show(got, d->radius));
        return rcm_check_vec(d->offset, 2, what ? what : "shape", "offset");   /* ground: the centre, world frame */
    case RC_SHAPE_POINT:
        return rcm_check_vec(d->offset, 2, what ? what : "shape", "offset");
    case RC_SHAPE_POLYGON:   /* ground: vertices in the world frame */
        return check_polygon(d, what ? what : "polygon");
    case RC_SHAPE_HALFPLANE: {
        if (!what) what = "halfplane";
        RC_CHECK(rcm_check_vec(d->point, 2, what, "point"));
        RC_CHECK(rcm_check_vec(d->normal, 2, what, "normal"));
        double nn = hypot(d->normal[0], d->normal[1]);
        if (!(nn > 0.0)) return rc_set_error(RC_ERR_ARG, "%s: 'normal' must be nonzero", what);
        d->normal[0] /= nn; d->normal[1] /= nn;
        return RC_OK;
    }
    case RC_SHAPE_SEGMENT:
        if (!what) what = "segment";
        RC_CHECK(rcm_check_vec(d->a, 2, what, "a"));
        RC_CHECK(rcm_check_vec(d->b, 2, what, "b"));
        if (d->a[0] == d->b[0] && d->a[1] == d->b[1])
            return rc_set_error(RC_ERR_ARG, "%s: 'a' and 'b' must differ", what);
        if (!rcb_finite(d->radius) || d->radius < 0.0)
            return rc_set_error(RC_ERR_ARG, "%s: 'radius' must be >= 0 (got %s)", what, rcb_show(got, d->radius));
        return RC_OK;
    case RC_SHAPE_CIRCLE_INSIDE:   /* the centre in offset, world frame */
        if (!what) what = "circle_inside";
        RC_CHECK(rcm_check_vec(d->offset, 2, what, "centre"));
        if (!rcb_finite(d->radius) || d->radius <= 0.0)
            return rc_set_error(RC_ERR_ARG, "%s: 'radius' must be > 0 (got %s)", what, rcb_show(got, d->radius));
        return RC_OK;
    }
    return rc_set_error(RC_ERR_ARG, "%s: unknown type %d", what ? what : "shape", (int)d->type);
}

rc_status rc_shape_def_check(const rc_shape_def *def, const char *what)
{
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_shape_def_check: 'def' is NULL");
    rc_shape_def d = *def;
    return check_shape_def(&d, what);
}

static rc_status check_shape(const rc_world *w, int body, rc_shape_def *d)
{
    const int ground = body == RC_GROUND;
    RC_CHECK(rcm_planar_only(w, "shape"));
    if (!ground && !rcm_valid_body(w, body))
        return rc_set_error(RC_ERR_NOT_FOUND, "shape: no body with id %d", body);
    if (!ground && w->bodies[body].kind != RC_BODY_RIGID2D)
        return rc_set_error(RC_ERR_ARG, "shape: body %d is a linear body; its contacts are gap functions (rc_gap_create)", body);
    if (ground && d->type == RC_SHAPE_POINT)
        return rc_set_error(RC_ERR_ARG, "shape: points belong to bodies, not to the ground");
    if (!ground && d->type == RC_SHAPE_HALFPLANE)
        return rc_set_error(RC_ERR_ARG, "halfplane: half-planes are static obstacles (body must be the ground)");
    if (!ground && d->type == RC_SHAPE_SEGMENT)
        return rc_set_error(RC_ERR_ARG, "segment: segments are static obstacles (body must be the ground)");
    if (!ground && d->type == RC_SHAPE_CIRCLE_INSIDE)
        return rc_set_error(RC_ERR_ARG, "circle_inside: circular walls are static obstacles (body must be the ground)");
    return check_shape_def(d, NULL);
}

rc_status rc_shape_create(rc_world *w, int body, const rc_shape_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_shape_create: NULL argument");
    rc_shape_def d = *def;
    RC_CHECK(check_shape(w, body, &d));
    rcm_sleep_wake(w, body);   /* (sleep.c) */
    const int slot = rcm_shape_free_slot(w);   /* a removed shape's slot (remove.c) */
    if (slot < 0) RC_CHECK(rcb_reserve((void **)&w->shapes, &w->cap_shapes, w->nshapes + 1, sizeof(rc_shape)));
    const int id = slot >= 0 ? slot : w->nshapes;
    rc_shape *s = &w->shapes[id];
    double (*old_blk)[2] = slot >= 0 && s->nvert > 0 ? s->vert : NULL;   /* a removed polygon's block */
    memset(s, 0, sizeof *s);
    s->type = d.type;
    s->body = body;
    s->group = d.group;
    s->name = rcb_strdup(d.name);
    if (d.name && !s->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    s->radius = d.type == RC_SHAPE_POINT ? 0.0 : d.radius;
    memcpy(s->offset, d.offset, sizeof s->offset);
    s->nvert = d.type == RC_SHAPE_POLYGON ? d.nvert : 0;
    if (s->nvert > 0) {   /* vert, wvert, wnorm + the AABB in one block */
        double (*blk)[2] = rcb_realloc(old_blk, ((size_t)3 * s->nvert + 2) * sizeof *blk);
        old_blk = NULL;
        if (!blk) { rcb_free(s->name); return rc_set_error(RC_ERR_NOMEM, "out of memory"); }
        memcpy(blk, d.vert, (size_t)s->nvert * sizeof *blk);
        s->vert = blk;
        s->wvert = blk + s->nvert;
        s->wnorm = blk + 2 * s->nvert;
        memset(s->wvert, 0, ((size_t)2 * s->nvert + 2) * sizeof *blk);
    } else if (d.type == RC_SHAPE_HALFPLANE) {
        memcpy(s->point, d.point, sizeof s->point);
        memcpy(s->normal, d.normal, sizeof s->normal);
    } else if (d.type == RC_SHAPE_SEGMENT) {
        memcpy(s->a, d.a, sizeof s->a);
        memcpy(s->b, d.b, sizeof s->b);
    }
    double bound = hypot(d.offset[0], d.offset[1]) + s->radius;
    for (int i = 0; i < s->nvert; i++) {
        double r = hypot(d.vert[i][0], d.vert[i][1]);
        if (r > bound) bound = r;
    }
    s->bound = bound;
    rcb_free(old_blk);
    if (out_id) *out_id = id;
    if (slot >= 0) rcm_life_revive(w->shape_life, w->nshape_life, slot);
    else w->nshapes++;
    return rcm_world_rebuild_slots(w);
}

int rc_shape_count(const rc_world *w) { return w ? w->nshapes : 0; }

rc_status rc_shape_get_def(const rc_world *w, int id, int *body, rc_shape_def *def)
{
    if (!w || id < 0 || id >= w->nshapes) return rc_set_error(RC_ERR_NOT_FOUND, "no shape with id %d", id);
    if (rcm_is_removed(w->shape_life, w->nshape_life, id))
        return rc_set_error(RC_ERR_NOT_FOUND, "shape %d was removed at t = %.17g", id, w->shape_life[id].t);
    const rc_shape *s = &w->shapes[id];
    if (body) *body = s->body;
    if (def) {
        *def = rc_default_shape_def();
        def->type = s->type; def->radius = s->radius; def->nvert = s->nvert; def->group = s->group;
        def->name = s->name;
        memcpy(def->offset, s->offset, sizeof def->offset);
        if (s->nvert > 0) memcpy(def->vert, s->vert, (size_t)s->nvert * sizeof *s->vert);
        if (s->type == RC_SHAPE_HALFPLANE) {   /* the fields of the other types keep their defaults */
            memcpy(def->point, s->point, sizeof def->point);
            memcpy(def->normal, s->normal, sizeof def->normal);
        } else if (s->type == RC_SHAPE_SEGMENT) {
            memcpy(def->a, s->a, sizeof def->a);
            memcpy(def->b, s->b, sizeof def->b);
        }
    }
    return RC_OK;
}

/* Number of potential contacts between two shapes (named slots; the
 * narrowphase of a named pair). */
int rcm_shape_feature_count(const rc_shape *a, const rc_shape *b)
{
    if (a->body == b->body) return 0;          /* same body, or ground-ground */
    int ka = rcm_shape_kind(a), kb = rcm_shape_kind(b);
    if (ka > kb) { const rc_shape *s = a; a = b; b = s; int k = ka; ka = kb; kb = k; }
    if (ka == RC_SK_NONE) return 0;
    if (ka == RC_SK_ROUND) return 1;               /* disk/point with anything */
    if (ka == RC_SK_POLY) {
        if (kb == RC_SK_CIN) return a->nvert;      /* its vertices */
        if (kb == RC_SK_POLY) return a->nvert + b->nvert;
        if (kb == RC_SK_HALF) return a->nvert;
        if (kb == RC_SK_SEG) return a->nvert + 2;
    }
    return 0;                                  /* half-plane/segment/circle_inside pairs */
}
