/* sleep.c -- the step's part of sleeping (docs/sleeping.md; the settings and
 * waking on edits: model/sleep.c). Box2D v3's islands (island.c) and solver
 * sets (solver_set.c) are the model; the code is ours.
 *
 *   detect       rci_sleep_begin: the per-body arrays sized (bodies added);
 *                the broadphase skips pairs of two sleeping bodies (or of a
 *                sleeping body and the ground, rcm_sleeping_pair);
 *                rci_sleep_merge: the kept contacts of sleeping pairs go back
 *                into the step's contacts (sorted by key), so that ids,
 *                impulses and the state's contact list stay as they were
 *   wake         rci_sleep_wake_touched: a contact between a sleeping body
 *                and an awake one that enters the index set (the rule of
 *                rci_stage_index_set) wakes the sleeping island, until no
 *                more wake (an island woken may touch another)
 *   free velocity, index set: sleeping bodies get V = 0 and their pairs are
 *                not active (step.c); nothing moves them in the solve
 *   after audit  rci_sleep_after: timers, islands (union-find over the
 *                step's active contacts, joints and springs, bodies in id
 *                order: deterministic), islands asleep, their velocities set
 *                to exactly 0 (their kinetic energy is E_sleep), the kept
 *                contacts rebuilt when the set of sleeping bodies changed
 */
#include "integrate/integrate.h"

#include <math.h>
#include <string.h>

rc_status rci_sleep_begin(rc_world *w)
{
    return w->sleep ? rcm_sleep_reserve(w) : RC_OK;
}

/* The kept contacts whose bodies still both sleep, merged into the
 * detected ones (both sorted by key; the broadphase found no such pair). */
rc_status rci_sleep_merge(rc_world *w)
{
    rcm_sleep *s = w->sleep;
    if (!s) return RC_OK;
    s->info.pairs = w->npairs;
    s->info.kept_contacts = 0;
    if (w->nasleep == 0 || s->nkept == 0) return RC_OK;
    int nk = 0;
    for (int j = 0; j < s->nkept; j++)
        if (rcm_sleeping_pair(w, s->kept[j].body_a, s->kept[j].body_b)) nk++;
    if (nk == 0) return RC_OK;
    const int n = w->ncontacts;
    RC_CHECK(rcb_reserve((void **)&w->contacts, &w->cap_contacts, n + nk, sizeof(rc_contact)));
    int i = n - 1, j = s->nkept - 1, k = n + nk - 1;
    while (j >= 0) {   /* from the back, in place */
        const rc_contact *c = &s->kept[j];
        if (!rcm_sleeping_pair(w, c->body_a, c->body_b)) { j--; continue; }
        if (i >= 0 && w->contacts[i].key > c->key) w->contacts[k--] = w->contacts[i--];
        else { w->contacts[k--] = *c; j--; }
    }
    w->ncontacts = n + nk;
    s->info.kept_contacts = nk;
    return RC_OK;
}

/* Whether contact c enters this step's index set: the rule of
 * rci_stage_index_set (step.c), which this must follow. */
static int would_activate(const rci_step *st, const rc_contact *c)
{
    const rc_world *w = st->w;
    if (st->scheme->every_pair) return 1;
    double uk[2];
    rcm_contact_dot(w, c, st->vk, NULL, uk);
    const int anticipate = w->sim.activation == RC_ACTIVATE_ANTICIPATE;
    const double trigger = anticipate ? c->gN + w->sim.gamma * st->h * uk[0] : c->gN;
    const int in_rule = trigger <= 0.0 && (anticipate || uk[0] <= 0.0);
    const double band = fmax(w->sim.persist_tol, w->persist_band);
    return in_rule || (c->p[0] != 0.0 && trigger <= band);
}

/* A contact between a sleeping and an awake body that becomes active wakes
 * the sleeping island; repeated until nothing more wakes. */
rc_status rci_sleep_wake_touched(rci_step *st)
{
    rc_world *w = st->w;
    if (!w->sleep) return RC_OK;
    w->sleep->info.woke = 0;
    for (int changed = w->nasleep > 0; changed && w->nasleep > 0;) {
        changed = 0;
        for (int i = 0; i < w->ncontacts; i++) {
            const rc_contact *c = &w->contacts[i];
            const int a = c->body_a, b = c->body_b;
            if (a == RC_GROUND) continue;   /* ground pairs: one side awake is awake */
            const int sa = w->asleep[a], sb = w->asleep[b];
            if (sa == sb || !would_activate(st, c)) continue;
            const int n = rcm_sleep_wake(w, sa ? a : b);
            w->sleep->info.woke += n;
            changed = 1;
        }
    }
    return RC_OK;
}

/* ---------------------------------------------------------------- islands */

static int find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void unite(int *parent, int a, int b)
{
    if (a < 0 || b < 0) return;   /* the ground joins nothing */
    a = find(parent, a);
    b = find(parent, b);
    if (a == b) return;
    if (a < b) parent[b] = a; else parent[a] = b;   /* the lowest id is the root */
}

/* Per body: whether it may sleep at all (0: never; see rc_sleep_def). */
static void mark_never(rc_world *w, unsigned char *never)
{
    for (int b = 0; b < w->nbodies; b++) {
        const rc_body_ext *x = rcm_body_ext_of(w, b);
        never[b] = w->bodies[b].kind != RC_BODY_RIGID2D || (x && x->force_fn);
    }
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        if (!j->rows) continue;   /* removed */
        if (j->def.body_a >= 0) never[j->def.body_a] = 1;
        if (j->def.body_b >= 0) never[j->def.body_b] = 1;
    }
    for (int i = 0; i < w->nsprings; i++) {
        const rc_spring *sp = &w->springs[i];
        if (sp->removed) continue;
        if (sp->def.body_a >= 0) never[sp->def.body_a] = 1;
        if (sp->def.body_b >= 0) never[sp->def.body_b] = 1;
    }
    for (int i = 0; i < w->ncontacts; i++) {
        const rc_contact *c = &w->contacts[i];
        if (w->laws[c->law].closed_form && c->gap < 0) continue;
        if (c->body_a >= 0) never[c->body_a] = 1;
        never[c->body_b] = 1;
    }
}

/* Timers from v_{k+1}: + h below both thresholds, else 0. */
static void update_timers(rci_step *st, const unsigned char *never)
{
    rc_world *w = st->w;
    rcm_sleep *s = w->sleep;
    const double lin2 = s->def.linear * s->def.linear, ang = s->def.angular;
    for (int b = 0; b < w->nbodies; b++) {
        if (w->asleep[b]) continue;
        const double *v = w->v + w->bodies[b].iv;
        const int still = !never[b] && v[0] * v[0] + v[1] * v[1] < lin2 && fabs(v[2]) < ang;
        s->timer[b] = still ? s->timer[b] + st->h : 0.0;
    }
}

/* Island roots of the awake bodies (parent), over the active contacts,
 * joints and springs of this step. */
static void build_islands(rc_world *w, int *parent)
{
    for (int b = 0; b < w->nbodies; b++) parent[b] = b;
    for (int k = 0; k < w->nactive; k++) {
        const rc_contact *c = &w->contacts[w->active[k]];
        unite(parent, c->body_a, c->body_b);
    }
    for (int i = 0; i < w->njoints; i++)
        if (w->joints[i].rows) unite(parent, w->joints[i].def.body_a, w->joints[i].def.body_b);
    for (int i = 0; i < w->nsprings; i++)
        if (!w->springs[i].removed) unite(parent, w->springs[i].def.body_a, w->springs[i].def.body_b);
}

/* The islands whose bodies all rested long enough fall asleep: each becomes
 * a cycle of next[], its velocities exactly 0; returns their kinetic energy.
 * ok, tail: per root, whether the island may sleep and its last member. */
static double fall_asleep(rc_world *w, int *parent, int *ok, int *tail, const unsigned char *never)
{
    rcm_sleep *s = w->sleep;
    const int n = w->nbodies;
    for (int b = 0; b < n; b++) parent[b] = find(parent, b);   /* every body to its root */
    for (int b = 0; b < n; b++) { ok[b] = 1; tail[b] = -1; }
    for (int b = 0; b < n; b++)
        if (w->asleep[b] || never[b] || w->bodies[b].kind != RC_BODY_RIGID2D || s->timer[b] < s->def.time) ok[parent[b]] = 0;
    double E = 0.0;
    int fell = 0;
    for (int b = 0; b < n; b++) {
        const int r = parent[b];
        if (!ok[r]) continue;
        const rc_body *bd = &w->bodies[b];
        double *v = w->v + bd->iv;
        const double *md = w->mass_diag + bd->iv;
        E += 0.5 * (md[0] * v[0] * v[0] + md[1] * v[1] * v[1] + md[2] * v[2] * v[2]);
        v[0] = v[1] = v[2] = 0.0;
        w->asleep[b] = 1;
        s->next[b] = r;                           /* closes the cycle at the root ... */
        if (tail[r] >= 0) s->next[tail[r]] = b;   /* ... after the previous member */
        tail[r] = b;
        fell++;
    }
    w->nasleep += fell;
    s->info.fell_asleep = fell;
    if (fell) s->stale = 1;
    return E;
}

/* The kept contacts: those of sleeping pairs, in key order. */
static rc_status keep_contacts(rc_world *w)
{
    rcm_sleep *s = w->sleep;
    int n = 0;
    for (int i = 0; i < w->ncontacts; i++)
        if (rcm_sleeping_pair(w, w->contacts[i].body_a, w->contacts[i].body_b)) n++;
    RC_CHECK(rcb_reserve((void **)&s->kept, &s->cap_kept, n, sizeof(rc_contact)));
    n = 0;
    for (int i = 0; i < w->ncontacts; i++) {
        const rc_contact *c = &w->contacts[i];
        if (!rcm_sleeping_pair(w, c->body_a, c->body_b)) continue;
        s->kept[n] = *c;
        s->kept[n].aux = NULL;
        n++;
    }
    s->nkept = n;
    s->stale = 0;
    return RC_OK;
}

/* After the audit of an accepted step: timers, islands, sleep; st->E_sleep
 * is the kinetic energy taken out (st->Ek1 is lowered by as much). */
rc_status rci_sleep_after(rci_step *st)
{
    rc_world *w = st->w;
    rcm_sleep *s = w->sleep;
    st->E_sleep = 0.0;
    if (!s) return RC_OK;
    s->info.fell_asleep = 0;
    if (s->def.enabled && w->nbodies > 0) {
        unsigned char *never;
        int *parent, *ok, *tail;
        RC_CHECK(rcb_arena_array(&w->work, (void **)&never, w->nbodies, 1, "sleep: bodies that never sleep"));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&parent, w->nbodies, sizeof(int), "sleep: islands"));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&ok, w->nbodies, sizeof(int), "sleep: islands"));
        RC_CHECK(rcb_arena_array(&w->work, (void **)&tail, w->nbodies, sizeof(int), "sleep: islands"));
        mark_never(w, never);
        update_timers(st, never);
        build_islands(w, parent);
        st->E_sleep = fall_asleep(w, parent, ok, tail, never);
        st->Ek1 -= st->E_sleep;
    }
    if (s->stale) RC_CHECK(keep_contacts(w));
    if (s->def.enabled) {
        s->info.steps++;
        int awake = 0;
        for (int b = 0; b < w->nbodies; b++) awake += w->bodies[b].kind == RC_BODY_RIGID2D && !w->asleep[b];
        s->info.awake_sum += awake;
    }
    return RC_OK;
}
