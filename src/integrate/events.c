/* events.c -- contact events after each step (docs/queries-and-events.md):
 * the contacts that began touching (active this step, not in the last one),
 * stopped touching (active in the last step, not in this one) and the
 * impacts (active, with a normal impulse p_N above the user's threshold).
 *
 * A part of the world (rc_part, slot RC_PART_EVENTS) whose after-step
 * observer compares the state's contacts (w->rec, sorted by key) with a copy
 * of the last step's, in one merge pass: every list comes out sorted by
 * contact key, the same for the same run. Nothing is computed in the solver
 * and no callback runs from inside the step: a host reads the lists after
 * it (rc_world_events). The arrays grow with the number of contacts only,
 * so steps allocate nothing once the sizes have settled.
 */
#include "integrate/integrate.h"

#include <math.h>
#include <string.h>

typedef struct rc_events_state {
    double threshold;           /* impacts: p_N > threshold */
    rc_contact_rec *prev;       /* the last step's contacts (w->rec then) */
    rc_contact_geom *prev_geom; /* and their geometry (rcm_state_geom) */
    int nprev, cap_prev, cap_prev_geom;
    rc_contact_info *list[3];   /* begin, end, impact */
    int n[3], cap[3];
} rc_events_state;

enum { EV_BEGIN, EV_END, EV_IMPACT };

static void events_free(rc_world *w)
{
    rc_events_state *e = w->events;
    if (!e) return;
    rcb_free(e->prev);
    rcb_free(e->prev_geom);
    for (int k = 0; k < 3; k++) rcb_free(e->list[k]);
    rcb_free(e);
    w->events = NULL;
}

static size_t events_memory(const rc_world *w)
{
    const rc_events_state *e = w->events;
    if (!e) return 0;
    size_t m = sizeof *e + (size_t)e->cap_prev * sizeof(rc_contact_rec) + (size_t)e->cap_prev_geom * sizeof(rc_contact_geom);
    for (int k = 0; k < 3; k++) m += (size_t)e->cap[k] * sizeof(rc_contact_info);
    return m;
}

/* Keep the current contacts as the next step's "last" ones. */
static rc_status snapshot(rc_world *w, rc_events_state *e)
{
    RC_CHECK(rcb_reserve((void **)&e->prev, &e->cap_prev, w->nrec, sizeof(rc_contact_rec)));
    RC_CHECK(rcb_reserve((void **)&e->prev_geom, &e->cap_prev_geom, w->nrec, sizeof(rc_contact_geom)));
    if (w->nrec) memcpy(e->prev, w->rec, (size_t)w->nrec * sizeof(rc_contact_rec));
    for (int i = 0; i < w->nrec; i++) (void)rcm_state_geom(w, i, &e->prev_geom[i]);   /* after a completed step: there */
    e->nprev = w->nrec;
    return RC_OK;
}

/* An end event of a contact no longer detected: its last record, with no
 * impulse, velocity or work in this step. */
static void ended(const rc_world *w, const rc_contact_rec *r, const rc_contact_geom *g, rc_contact_info *info)
{
    rc_contact_rec z = *r;
    rc_contact_geom zg = *g;
    z.active = 0;
    zg.u[0] = zg.u[1] = z.p[0] = z.p[1] = 0.0;
    z.WN = z.WT = 0.0;
    rcm_contact_info_of(w, &z, &zg, info);
}

/* the state's contact i (after the step: its geometry in w->contacts) */
static void now_info(const rc_world *w, int i, rc_contact_info *info)
{
    rc_contact_geom g;
    (void)rcm_state_geom(w, i, &g);
    rcm_contact_info_of(w, &w->rec[i], &g, info);
}

static rc_status events_after_step(rc_world *w)
{
    rc_events_state *e = w->events;
    const int nr = w->nrec, np = e->nprev;
    /* room: at most nr begin and impact events, np end events */
    RC_CHECK(rcb_reserve((void **)&e->list[EV_BEGIN], &e->cap[EV_BEGIN], nr, sizeof(rc_contact_info)));
    RC_CHECK(rcb_reserve((void **)&e->list[EV_IMPACT], &e->cap[EV_IMPACT], nr, sizeof(rc_contact_info)));
    RC_CHECK(rcb_reserve((void **)&e->list[EV_END], &e->cap[EV_END], np, sizeof(rc_contact_info)));
    e->n[EV_BEGIN] = e->n[EV_END] = e->n[EV_IMPACT] = 0;
    int i = 0, j = 0;   /* i over w->rec (now), j over e->prev (last step) */
    while (i < nr || j < np) {
        const rc_contact_rec *c = i < nr ? &w->rec[i] : NULL, *p = j < np ? &e->prev[j] : NULL;
        if (c && p && c->key == p->key) {
            if (c->active && !p->active) now_info(w, i, &e->list[EV_BEGIN][e->n[EV_BEGIN]++]);
            if (!c->active && p->active) now_info(w, i, &e->list[EV_END][e->n[EV_END]++]);
            i++; j++;
        } else if (c && (!p || c->key < p->key)) {          /* new this step */
            if (c->active) now_info(w, i, &e->list[EV_BEGIN][e->n[EV_BEGIN]++]);
            p = NULL;
            i++;
        } else {                                            /* gone this step */
            if (p->active) ended(w, p, &e->prev_geom[j], &e->list[EV_END][e->n[EV_END]++]);
            c = NULL;
            j++;
        }
        if (c && c->active && c->p[0] > e->threshold)
            now_info(w, (int)(c - w->rec), &e->list[EV_IMPACT][e->n[EV_IMPACT]++]);
    }
    return snapshot(w, e);
}

static const rc_part events_part = { events_free, events_memory, events_after_step };

rc_status rc_world_track_events(rc_world *w, int on, double impact_threshold)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_track_events: 'w' is NULL");
    if (on != 0 && on != 1) return rc_set_error(RC_ERR_ARG, "rc_world_track_events: 'on' must be 0 or 1 (got %d)", on);
    if (!on) {
        events_free(w);
        rcm_world_attach_part(w, RC_PART_EVENTS, NULL);
        return RC_OK;
    }
    if (!(impact_threshold >= 0.0))   /* +inf: no impacts */
        return rc_set_error(RC_ERR_ARG, "rc_world_track_events: 'impact_threshold' must be >= 0 (got %g)",
                            impact_threshold);
    if (!w->events) {
        rc_events_state *e = rcb_malloc(sizeof *e);
        if (!e) return rc_set_error(RC_ERR_NOMEM, "out of memory (contact events)");
        memset(e, 0, sizeof *e);
        w->events = e;
        rcm_world_attach_part(w, RC_PART_EVENTS, &events_part);
        rc_status s = snapshot(w, e);
        if (s != RC_OK) { events_free(w); rcm_world_attach_part(w, RC_PART_EVENTS, NULL); return s; }
    }
    w->events->threshold = impact_threshold;
    return RC_OK;
}

rc_status rc_world_events(const rc_world *w, rc_event_kind kind, const rc_contact_info **list, int *count)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_events: 'w' is NULL");
    if (!list || !count) return rc_set_error(RC_ERR_ARG, "rc_world_events: 'list' and 'count' must not be NULL");
    if (kind != RC_EVENT_BEGIN && kind != RC_EVENT_END && kind != RC_EVENT_IMPACT)
        return rc_set_error(RC_ERR_ARG, "rc_world_events: unknown kind %d", (int)kind);
    if (!w->events)
        return rc_set_error(RC_ERR_STATE, "rc_world_events: events are not tracked (call rc_world_track_events first)");
    const int k = kind == RC_EVENT_BEGIN ? EV_BEGIN : kind == RC_EVENT_END ? EV_END : EV_IMPACT;
    *list = w->events->list[k];
    *count = w->events->n[k];
    return RC_OK;
}
