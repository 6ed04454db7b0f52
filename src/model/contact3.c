/* contact3.c -- the shapes and the contact store of dim = 3 worlds
 * (model/contact3.h; docs/theory/spatial.md, "Contacts"). */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

rc_shape3_def rc_default_shape3_def(void)
{
    rc_shape3_def d;
    memset(&d, 0, sizeof d);
    d.kind = RC_SHAPE3_SPHERE;
    d.radius = 1.0;
    d.half[0] = d.half[1] = d.half[2] = 0.5;
    d.normal[2] = 1.0;
    return d;
}

static rc_status shape3_check(const rc_world *w, int body, const rc_shape3_def *d)
{
    char got[RCB_SHOW_SIZE];
    if (w->def.dim != 3) return rc_set_error(RC_ERR_ARG, "rc_shape3_create: a spatial shape needs a world of dim = 3");
    if (body != RC_GROUND && (body < 0 || body >= w->nbodies || w->bodies[body].kind != RC_BODY_RIGID3D))
        return rc_set_error(RC_ERR_NOT_FOUND, "rc_shape3_create: no spatial body with id %d", body);
    for (int i = 0; i < 3; i++)
        if (!rcb_finite(d->point[i]) || !rcb_finite(d->normal[i]))
            return rc_set_error(RC_ERR_ARG, "rc_shape3_create: 'point' and 'normal' must be finite");
    switch (d->kind) {
    case RC_SHAPE3_PLANE:
        if (body != RC_GROUND) return rc_set_error(RC_ERR_ARG, "rc_shape3_create: a plane is a static obstacle (body RC_GROUND)");
        if (!(d->normal[0] * d->normal[0] + d->normal[1] * d->normal[1] + d->normal[2] * d->normal[2] > 0.0))
            return rc_set_error(RC_ERR_ARG, "rc_shape3_create: a plane's 'normal' must be nonzero");
        return RC_OK;
    case RC_SHAPE3_CAPSULE:
        if (!rcb_finite(d->half_len) || d->half_len < 0.0)
            return rc_set_error(RC_ERR_ARG, "rc_shape3_create: 'half_length' must be >= 0 (got %s)", rcb_show(got, d->half_len));
        if (!rcb_finite(d->radius) || d->radius <= 0.0)
            return rc_set_error(RC_ERR_ARG, "rc_shape3_create: 'radius' must be > 0 (got %s)", rcb_show(got, d->radius));
        return RC_OK;
    case RC_SHAPE3_SPHERE:
        if (!rcb_finite(d->radius) || d->radius <= 0.0)
            return rc_set_error(RC_ERR_ARG, "rc_shape3_create: 'radius' must be > 0 (got %s)", rcb_show(got, d->radius));
        return RC_OK;
    case RC_SHAPE3_BOX:
        for (int i = 0; i < 3; i++)
            if (!rcb_finite(d->half[i]) || d->half[i] <= 0.0)
                return rc_set_error(RC_ERR_ARG, "rc_shape3_create: box half-extents must be > 0 (got %s)", rcb_show(got, d->half[i]));
        return RC_OK;
    case RC_SHAPE3_POLYHEDRON:
        return rc_set_error(RC_ERR_ARG, "rc_shape3_create: a polyhedron is made by rc_shape3_create_polyhedron (from its points)");
    default:
        return rc_set_error(RC_ERR_ARG, "rc_shape3_create: unknown shape kind %d", (int)d->kind);
    }
}

rc_status rc_shape3_create(rc_world *w, int body, const rc_shape3_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_shape3_create: NULL argument");
    RC_CHECK(shape3_check(w, body, def));
    if (!w->c3) {
        w->c3 = rcb_malloc(sizeof *w->c3);
        if (!w->c3) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        memset(w->c3, 0, sizeof *w->c3);
    }
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_reserve((void **)&c3->shapes, &c3->cap_shapes, c3->nshapes + 1, sizeof(rcm_shape3)));
    rcm_shape3 *s = &c3->shapes[c3->nshapes];
    memset(s, 0, sizeof *s);
    s->body = body;
    s->kind = def->kind;
    s->radius = def->radius;
    s->half_len = def->half_len;
    s->group = def->group;
    for (int i = 0; i < 3; i++) {
        s->half[i] = def->half[i];
        s->point[i] = def->point[i];
        s->normal[i] = def->normal[i];
    }
    if (def->kind == RC_SHAPE3_PLANE) {
        const double l = sqrt(s->normal[0] * s->normal[0] + s->normal[1] * s->normal[1] + s->normal[2] * s->normal[2]);
        for (int i = 0; i < 3; i++) s->normal[i] /= l;
    }
    s->bound = def->kind == RC_SHAPE3_SPHERE ? def->radius : def->kind == RC_SHAPE3_CAPSULE ? def->radius + def->half_len
             : def->kind == RC_SHAPE3_BOX ? sqrt(def->half[0] * def->half[0] + def->half[1] * def->half[1] + def->half[2] * def->half[2])
             : 0.0;
    if (body != RC_GROUND)   /* a body's shape off its centre of mass */
        s->bound += sqrt(s->point[0] * s->point[0] + s->point[1] * s->point[1] + s->point[2] * s->point[2]);
    if (out_id) *out_id = c3->nshapes;
    c3->nshapes++;
    return RC_OK;
}

void rcm_c3_free(rc_world *w)
{
    rcm_c3 *c3 = w->c3;
    if (!c3) return;
    if (c3->broad && c3->broad_free) c3->broad_free(c3->broad);
    rcb_free(c3->shapes);
    rcb_free(c3->c);
    rcb_free(c3->prev);
    rcb_free(c3->aabb);
    rcb_free(c3->d);
    rcb_free(c3->dprev);
    rcb_free(c3->pd);
    rcb_free(c3->pi);
    rcb_free(c3);
    w->c3 = NULL;
}

const rcm_contact3_saved *rcm_c3_find_prev(const rcm_c3 *c3, uint64_t k)
{
    int lo = 0, hi = c3->nprev - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        const uint64_t km = c3->prev[mid].key;
        if (km == k) return &c3->prev[mid];
        if (km < k) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

static int by_key(const void *a, const void *b)
{
    const uint64_t ka = ((const rcm_contact3_saved *)a)->key, kb = ((const rcm_contact3_saved *)b)->key;
    return ka < kb ? -1 : ka > kb;
}

const rcm_drill3 *rcm_c3_find_dprev(const rcm_c3 *c3, uint64_t k)
{
    int lo = 0, hi = c3->ndprev - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        const uint64_t km = c3->dprev[mid].key;
        if (km == k) return &c3->dprev[mid];
        if (km < k) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

static int drill_by_key(const void *a, const void *b)
{
    const uint64_t ka = ((const rcm_drill3 *)a)->key, kb = ((const rcm_drill3 *)b)->key;
    return ka < kb ? -1 : ka > kb;
}

/* the drilling rows that are on become the last step's (sorted by key) */
static rc_status save_drill(rcm_c3 *c3)
{
    c3->ndprev = 0;
    if (!c3->d) return RC_OK;
    RC_CHECK(rcb_reserve((void **)&c3->dprev, &c3->cap_dprev, c3->n, sizeof(rcm_drill3)));
    for (int i = 0; i < c3->n; i++)
        if (c3->d[i].on) c3->dprev[c3->ndprev++] = c3->d[i];
    if (c3->ndprev > 1) qsort(c3->dprev, (size_t)c3->ndprev, sizeof(rcm_drill3), drill_by_key);
    return RC_OK;
}

rc_status rcm_c3_save(rc_world *w)
{
    rcm_c3 *c3 = w->c3;
    RC_CHECK(rcb_reserve((void **)&c3->prev, &c3->cap_prev, c3->n, sizeof(rcm_contact3_saved)));
    for (int i = 0; i < c3->n; i++) {
        const rcm_contact3 *c = &c3->c[i];
        rcm_contact3_saved *o = &c3->prev[i];
        o->key = c->key;
        o->id = c->id;
        for (int k = 0; k < 3; k++) { o->t1[k] = c->t1[k]; o->p[k] = c->p[k]; }
        o->law = c->law;
        memcpy(o->state, c->state, sizeof o->state);
    }
    c3->nprev = c3->n;
    if (c3->nprev > 1) qsort(c3->prev, (size_t)c3->nprev, sizeof(rcm_contact3_saved), by_key);   /* (NULL, 0): UB */
    return save_drill(c3);
}

int rc_world_contact3_count(const rc_world *w) { return w && w->c3 ? w->c3->n : 0; }

rc_status rc_world_contact3_get(const rc_world *w, int index, rc_contact3_info *o)
{
    if (!w || !o) return rc_set_error(RC_ERR_ARG, "rc_world_contact3_get: NULL argument");
    if (index < 0 || index >= rc_world_contact3_count(w))
        return rc_set_error(RC_ERR_NOT_FOUND, "rc_world_contact3_get: no contact with index %d", index);
    const rcm_contact3 *c = &w->c3->c[index];
    o->id = c->id; o->shape_a = c->shape_a; o->shape_b = c->shape_b;
    o->body_a = c->body_a; o->body_b = c->body_b; o->active = c->active;
    o->gN = c->gN;
    for (int i = 0; i < 3; i++) {
        o->pa[i] = c->pa[i]; o->pb[i] = c->pb[i];
        o->n[i] = c->n[i]; o->t1[i] = c->t1[i]; o->t2[i] = c->t2[i];
        o->u[i] = c->u[i]; o->p[i] = c->p[i];
    }
    const rcm_drill3 *d = w->c3->d && w->c3->d[index].on ? &w->c3->d[index] : NULL;
    o->drill = d != NULL;
    o->u_d = d ? d->u : 0.0;
    o->p_d = d ? d->p : 0.0;
    return RC_OK;
}
