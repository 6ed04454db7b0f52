/* sleep.c -- sleeping bodies: the settings, the per-body state, waking
 * (docs/sleeping.md; the step's part, islands and falling asleep, is in
 * integrate/sleep.c).
 *
 * A part of the world (rc_part, slot RC_PART_SLEEP), allocated when sleeping
 * is first enabled: per body a timer and, while it sleeps, a flag
 * (w->asleep, read by the broadphase and the index set) and the next body
 * of its island (a cycle, so that waking one body wakes the island in
 * O(island)); the contacts of sleeping pairs, kept between steps. The arrays
 * grow with the number of bodies and contacts only: steps allocate nothing
 * once those have settled. Box2D v3's islands and solver sets are the model
 * (island.c, solver_set.c); the code is ours.
 */
#include "model/model.h"

#include <string.h>

static void sleep_free(rc_world *w)
{
    rcm_sleep *s = w->sleep;
    if (!s) return;
    rcb_free(s->timer);
    rcb_free(s->next);
    rcb_free(s->kept);
    rcb_free(w->asleep);
    rcb_free(s);
    w->sleep = NULL;
    w->asleep = NULL;
    w->nasleep = 0;
}

static size_t sleep_memory(const rc_world *w)
{
    const rcm_sleep *s = w->sleep;
    if (!s) return 0;
    return sizeof *s + (size_t)s->cap * (sizeof(double) + sizeof(int) + 1) + (size_t)s->cap_kept * sizeof(rc_contact);
}

static const rc_part sleep_part = { sleep_free, sleep_memory, NULL };

rc_sleep_def rc_default_sleep_def(void)
{
    rc_sleep_def d = { 0, 0.01, 0.05, 0.5 };
    return d;
}

rc_status rcm_sleep_reserve(rc_world *w)
{
    rcm_sleep *s = w->sleep;
    const int n = w->nbodies;
    if (n <= s->cap) return RC_OK;
    int c1 = s->cap, c2 = s->cap, c3 = s->cap;
    RC_CHECK(rcb_reserve((void **)&s->timer, &c1, n, sizeof(double)));
    RC_CHECK(rcb_reserve((void **)&s->next, &c2, n, sizeof(int)));
    RC_CHECK(rcb_reserve((void **)&w->asleep, &c3, n, 1));
    const int c = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    for (int b = s->cap; b < c; b++) { s->timer[b] = 0.0; s->next[b] = -1; w->asleep[b] = 0; }
    s->cap = c;
    return RC_OK;
}

int rcm_body_asleep(const rc_world *w, int b)
{
    return w->nasleep > 0 && b >= 0 && b < w->sleep->cap && w->asleep[b];
}

int rcm_sleep_wake(rc_world *w, int b)
{
    rcm_sleep *s = w->sleep;
    if (!s || b < 0 || b >= s->cap) return 0;
    s->timer[b] = 0.0;
    if (!w->asleep[b]) return 0;
    int n = 0, k = b;
    do {   /* the island's cycle */
        const int nx = s->next[k];
        w->asleep[k] = 0;
        s->timer[k] = 0.0;
        s->next[k] = -1;
        n++;
        k = nx;
    } while (k != b && k >= 0);
    w->nasleep -= n;
    s->stale = 1;
    return n;
}

static void wake_all(rc_world *w)
{
    for (int b = 0; w->sleep && b < w->sleep->cap; b++) rcm_sleep_wake(w, b);
}

rc_status rc_world_set_sleep(rc_world *w, const rc_sleep_def *def)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_set_sleep: world is NULL");
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_world_set_sleep: def is NULL");
    if (w->stepping) return rc_set_error(RC_ERR_STATE, "rc_world_set_sleep: not inside a step");
    if (!(def->linear > 0.0) || !rcb_finite(def->linear))
        return rc_set_error(RC_ERR_ARG, "sleep: 'linear' must be a finite number > 0 (got %.17g)", def->linear);
    if (!(def->angular > 0.0) || !rcb_finite(def->angular))
        return rc_set_error(RC_ERR_ARG, "sleep: 'angular' must be a finite number > 0 (got %.17g)", def->angular);
    if (!(def->time >= 0.0) || !rcb_finite(def->time))
        return rc_set_error(RC_ERR_ARG, "sleep: 'time' must be a finite number >= 0 (got %.17g)", def->time);
    if (!def->enabled && !w->sleep) return RC_OK;   /* never enabled: nothing kept, steps as without */
    if (!w->sleep) {
        rcm_sleep *s = rcb_malloc(sizeof *s);
        if (!s) return rc_set_error(RC_ERR_NOMEM, "rc_world_set_sleep: out of memory");
        memset(s, 0, sizeof *s);
        w->sleep = s;
        rcm_world_attach_part(w, RC_PART_SLEEP, &sleep_part);
    }
    RC_CHECK(rcm_sleep_reserve(w));
    if (!def->enabled) wake_all(w);
    if (def->enabled && !w->sleep->def.enabled) {   /* counted from here */
        w->sleep->info.steps = 0;
        w->sleep->info.awake_sum = 0.0;
    }
    w->sleep->def = *def;
    w->sleep->def.enabled = def->enabled != 0;
    return RC_OK;
}

rc_status rc_world_get_sleep(const rc_world *w, rc_sleep_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_world_get_sleep: world or def is NULL");
    *def = w->sleep ? w->sleep->def : rc_default_sleep_def();
    return RC_OK;
}

rc_status rc_body_wake(rc_world *w, int id)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_body_wake: world is NULL");
    RC_CHECK(rcm_body_check(w, id, "rc_body_wake"));
    rcm_sleep_wake(w, id);
    return RC_OK;
}

int rc_body_is_sleeping(const rc_world *w, int id)
{
    return rcm_valid_body(w, id) && rcm_body_asleep(w, id);
}

rc_status rc_world_sleep_info(const rc_world *w, rc_sleep_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_world_sleep_info: world or info is NULL");
    memset(info, 0, sizeof *info);
    if (w->sleep) *info = w->sleep->info;
    info->enabled = w->sleep && w->sleep->def.enabled;
    info->sleeping = w->nasleep;
    info->awake = 0;
    for (int b = 0; b < w->nbodies; b++)
        if (w->bodies[b].kind == RC_BODY_RIGID2D && !rcm_body_asleep(w, b)) info->awake++;
    return RC_OK;
}
