/* contacts.c -- read-only queries of the contacts of the state (w->rec, their
 * geometry where rc_contact_geom says) and of the named contacts. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- contacts */

/* The contacts of the state: those the last completed step left (w->rec). */
int rc_contact_count(const rc_world *w) { return w ? w->nrec : 0; }

/* Shapes, bodies and feature of a contact of the state follow from its key
 * (rcm_contact_key; gap contacts: shape_a = 0xFFFFFF, shape_b = the gap). */
void rcm_contact_info_of(const rc_world *w, const rc_contact_rec *r, const rc_contact_geom *g, rc_contact_info *info)
{
    const int sa = (int)(r->key >> 40), sb = (int)((r->key >> 16) & 0xFFFFFF);
    info->id = r->id;
    if (sa == 0xFFFFFF) {   /* gap contact sb (linear.c) */
        info->shape_a = info->shape_b = -1;
        info->body_a = RC_GROUND;
        info->body_b = w->gaps[sb].body;
        info->feature = 0;
        info->tangent[0] = 1.0; info->tangent[1] = 0.0;
        if (w->gaps[sb].node) {   /* node-to-surface (node_gap.c): the rigid body, t = (n_y, -n_x) */
            double h[3];
            const int rb = rcm_node_gap_rigid_row(w, &w->gaps[sb], 0, h);
            info->body_a = rb >= 0 ? rb : RC_GROUND;
            info->tangent[0] = g->n[1]; info->tangent[1] = -g->n[0];
        }
    } else {
        info->shape_a = sa; info->shape_b = sb;
        info->body_a = w->shapes[sa].body; info->body_b = w->shapes[sb].body;
        info->feature = (int)(r->key & 0xFFFF);
        info->tangent[0] = g->n[1]; info->tangent[1] = -g->n[0];
    }
    info->active = (int)r->active;
    memcpy(info->point, g->point, sizeof info->point);
    memcpy(info->normal, g->n, sizeof info->normal);
    info->gN = g->gN;
    info->uN = g->u[0]; info->uT = g->u[1];
    info->pN = r->p[0]; info->pT = r->p[1];
    info->nu = r->nu;
    info->WN = r->WN; info->WT = r->WT;
    info->law = (int)r->law;
}

int rcm_state_geom(const rc_world *w, int i, rc_contact_geom *g)
{
    if (w->geom_at == RCM_GEOM_OWN) { *g = w->geom[i]; return 1; }
    if (w->geom_at == RCM_GEOM_LOST) return 0;
    const rc_contact *c = &w->contacts[i];
    g->point[0] = c->point[0]; g->point[1] = c->point[1];
    g->n[0] = c->n[0]; g->n[1] = c->n[1];
    g->gN = c->gN;
    g->u[0] = c->u[0]; g->u[1] = c->u[1];
    return 1;
}

rc_status rcm_state_keep_geom(rc_world *w)
{
    if (w->geom_at != RCM_GEOM_CONTACTS) return RC_OK;
    if (w->nrec > 0) RC_CHECK(rcb_reserve((void **)&w->geom, &w->cap_geom, w->nrec, sizeof(rc_contact_geom)));
    for (int i = 0; i < w->nrec; i++) (void)rcm_state_geom(w, i, &w->geom[i]);
    w->geom_at = RCM_GEOM_OWN;
    return RC_OK;
}

void rcm_state_geom_leave(rc_world *w)
{
    if (w->geom_at == RCM_GEOM_CONTACTS && w->nrec > 0) w->geom_at = RCM_GEOM_LOST;
}

void rcm_state_geom_in_contacts(rc_world *w)
{
    w->geom_at = RCM_GEOM_CONTACTS;
    rcb_free(w->geom);   /* a copy's room (an exploration, a restore) is given back */
    w->geom = NULL;
    w->cap_geom = 0;
}

/* state contact i's report, or an error when a failed step left it without its geometry */
static rc_status info_of(const rc_world *w, int i, rc_contact_info *info)
{
    rc_contact_geom g;
    if (!rcm_state_geom(w, i, &g))
        return rc_set_error(RC_ERR_STATE, "the contacts of the state have no points, normals, gaps or velocities after "
                            "a step that failed (t = %.17g, step %lld): step again (or restore a checkpoint) to read them",
                            w->t, (long long)w->step);
    rcm_contact_info_of(w, &w->rec[i], &g, info);
    return RC_OK;
}

rc_status rc_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_contact_get: NULL argument");
    if (index < 0 || index >= w->nrec)
        return rc_set_error(RC_ERR_NOT_FOUND, "no contact with index %d (there are %d)", index, w->nrec);
    return info_of(w, index, info);
}

int rc_named_contact_count(const rc_world *w) { return w ? w->nslots : 0; }

const char *rc_named_contact_name(const rc_world *w, int index)
{
    return (w && index >= 0 && index < w->nslots) ? w->slots[index].name : NULL;
}

static int find_key(const rc_contact_rec *c, int n, uint64_t key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c[mid].key == key) return mid;
        if (c[mid].key < key) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

rc_status rc_named_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_named_contact_get: NULL argument");
    if (index < 0 || index >= w->nslots)
        return rc_set_error(RC_ERR_NOT_FOUND, "no named contact with index %d", index);
    const int i = find_key(w->rec, w->nrec, w->slots[index].key);
    if (i >= 0) return info_of(w, i, info);
    memset(info, 0, sizeof *info);
    info->id = -1;
    info->law = -1;
    info->gN = info->uN = info->uT = info->pN = info->pT = info->WN = info->WT = NAN;
    return RC_OK;
}
