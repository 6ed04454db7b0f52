/* contacts_state.c -- the contacts a step leaves (w->rec, the state) and how
 * the next step's detected contacts inherit from them: persistent ids,
 * warm-start impulses, the laws' per-contact state (matched by key).
 */
#include "integrate/integrate.h"
#include "model/team.h"

#include <math.h>
#include <string.h>

/* Laws without a closed form (custom laws, the generic local solver) keep
 * per-contact data in w->aux (rc_contact_aux). */
static int has_custom_law(const rc_world *w)
{
    for (int i = 0; i < w->nlaws; i++)
        if (!w->laws[i].closed_form) return 1;
    return 0;
}

/* Contacts i0 .. i1 - 1 matched with the state's records from j on (both
 * sorted by key): persistent ids, warm-start impulses, law state. A new
 * contact gets the next id, or, with fresh, its index in fresh[] (the
 * count returned) for the caller to number in index order. */
static int match_range(rc_world *w, int i0, int i1, int j, int custom, int *fresh)
{
    int nfresh = 0;
    for (int i = i0; i < i1; i++) {
        rc_contact *c = &w->contacts[i];
        c->aux = custom ? &w->aux[i] : NULL;
        while (j < w->nrec && w->rec[j].key < c->key) j++;
        if (j < w->nrec && w->rec[j].key == c->key) {
            c->id = w->rec[j].id;
            c->p[0] = w->rec[j].p[0];
            c->p[1] = w->rec[j].p[1];
            if (!custom) continue;
            if (w->rec_has_state)
                memcpy(c->aux->state, w->rec_state + (size_t)j * RC_LAW_MAX_STATE, sizeof c->aux->state);
            else   /* the state was left when every law had a closed form: theirs is zero */
                memset(c->aux->state, 0, sizeof c->aux->state);
        } else {
            if (fresh) fresh[nfresh++] = i;
            else c->id = w->next_contact_id++;
            c->p[0] = c->p[1] = 0.0;
            if (custom) memcpy(c->aux->state, w->laws[c->law].ops.state0, sizeof c->aux->state);
        }
    }
    return nfresh;
}

/* the first of the state's records with a key >= key */
static int first_rec_from(const rc_world *w, uint64_t key)
{
    int lo = 0, hi = w->nrec;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (w->rec[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Match the new contacts (sorted by key) with the state's (w->rec, sorted):
 * persistent ids, warm-start impulses, law state. On two threads with the
 * solver's (rcm_team2, laws with a closed form): each matches half of the
 * contacts, the second from its first key's place in the state; the new
 * contacts are numbered after, in index order -- the ids of one thread. */
rc_status rci_match_contacts(rc_world *w)
{
    const int custom = has_custom_law(w), n = w->ncontacts;
    if (custom) RC_CHECK(rcb_arena_array(&w->work, (void **)&w->aux, n, sizeof(rc_contact_aux), "contacts' law data"));
    if (custom || n < 2 || !rcm_team2(w, n)) {
        (void)match_range(w, 0, n, 0, custom, NULL);
        return RC_OK;
    }
    int *fresh, nfresh[2] = { 0, 0 };
    const int half = n / 2, i0[2] = { 0, half }, i1[2] = { half, n };
    const rcb_arena_mark mark = rcb_arena_mark_now(&w->work);   /* fresh: given back below */
    RC_CHECK(rcb_arena_array(&w->work, (void **)&fresh, n, sizeof(int), "contacts' match"));
    const int j1 = first_rec_from(w, w->contacts[half].key);
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1))
    for (int t = 0; t < 2; t++) nfresh[t] = match_range(w, i0[t], i1[t], t ? j1 : 0, 0, fresh + i0[t]);
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < nfresh[t]; k++) w->contacts[fresh[i0[t] + k]].id = w->next_contact_id++;
    rcb_arena_release(&w->work, mark);
    return RC_OK;
}

/* The accepted step's contacts become the state (w->rec): what the API
 * reports and the next step matches; their geometry stays in w->contacts
 * (rc_contact_geom). Called once nothing can fail. */
rc_status rci_reserve_state(rc_world *w)   /* room for save_contacts, reserved before the update */
{
    const int n = w->ncontacts;
    RC_CHECK(rcb_reserve((void **)&w->rec, &w->cap_rec, n, sizeof(rc_contact_rec)));
    if (n > 0 && w->contacts[0].aux)
        RC_CHECK(rcb_reserve((void **)&w->rec_state, &w->cap_rec_state, n * RC_LAW_MAX_STATE, sizeof(double)));
    return RC_OK;
}

/* records i0 .. i1 - 1; the first of them with the largest overlap -g_N (or -1) */
static int save_range(rc_world *w, int i0, int i1, int custom)
{
    int deep = -1;
    double most = -INFINITY;
    for (int i = i0; i < i1; i++) {
        const rc_contact *c = &w->contacts[i];
        if (-c->gN > most) { most = -c->gN; deep = i; }
        rc_contact_rec *r = &w->rec[i];
        r->key = c->key;
        r->id = c->id;
        r->law = (unsigned)c->law;
        r->active = c->active != 0;
        r->p[0] = c->p[0]; r->p[1] = c->p[1];
        r->nu = c->nu;
        r->WN = r->WT = 0.0;
        if (c->active) {   /* eq. (68) as the audit computed it: u_{k+theta} (kept in w->V) . p */
            double uth[2];
            rcm_contact_dot(w, c, w->V, NULL, uth);
            r->WN = uth[0] * c->p[0];
            r->WT = uth[1] * c->p[1];
        }
        if (custom) memcpy(w->rec_state + (size_t)i * RC_LAW_MAX_STATE, c->aux->state, sizeof c->aux->state);
    }
    return deep;
}

/* *deepest: the first contact with the largest overlap -g_N, or -1 (for the
 * run's largest overlap, step.c). On two threads with the solver's: each
 * record its own, each thread half of them, the halves' deepest compared in
 * order -- the one-thread answer. */
void rci_save_contacts(rc_world *w, int *deepest)
{
    const int n = w->ncontacts, custom = n > 0 && w->contacts[0].aux != NULL;
    const int team = rcm_team2(w, n), half = team ? n / 2 : n, i0[2] = { 0, half }, i1[2] = { half, n };
    int deep[2] = { -1, -1 };
    RC_OMP(omp parallel for num_threads(2) schedule(static, 1) if(team))
    for (int t = 0; t < 2; t++) deep[t] = save_range(w, i0[t], i1[t], custom);
    *deepest = deep[0];
    if (deep[1] >= 0 && (deep[0] < 0 || -w->contacts[deep[1]].gN > -w->contacts[deep[0]].gN)) *deepest = deep[1];
    w->nrec = n;
    w->rec_has_state = custom;
    rcm_state_geom_in_contacts(w);   /* contacts[i] holds rec[i]'s geometry (rc_contact_geom) */
}
