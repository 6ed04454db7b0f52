/* contacts.c -- read-only queries of the contacts of the state (w->rec) and
 * of the named contacts. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- contacts */

/* The contacts of the state: those the last completed step left (w->rec). */
int rc_contact_count(const rc_world *w) { return w ? w->nrec : 0; }

/* Shapes, bodies and feature of a contact of the state follow from its key
 * (rcm_contact_key; gap contacts: shape_a = 0xFFFFFF, shape_b = the gap). */
void rcm_contact_info_of(const rc_world *w, const rc_contact_rec *r, rc_contact_info *info)
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
            info->tangent[0] = r->n[1]; info->tangent[1] = -r->n[0];
        }
    } else {
        info->shape_a = sa; info->shape_b = sb;
        info->body_a = w->shapes[sa].body; info->body_b = w->shapes[sb].body;
        info->feature = (int)(r->key & 0xFFFF);
        info->tangent[0] = r->n[1]; info->tangent[1] = -r->n[0];
    }
    info->active = (int)r->active;
    memcpy(info->point, r->point, sizeof info->point);
    memcpy(info->normal, r->n, sizeof info->normal);
    info->gN = r->gN;
    info->uN = r->u[0]; info->uT = r->u[1];
    info->pN = r->p[0]; info->pT = r->p[1];
    info->nu = r->nu;
    info->WN = r->WN; info->WT = r->WT;
    info->law = (int)r->law;
}

rc_status rc_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_contact_get: NULL argument");
    if (index < 0 || index >= w->nrec)
        return rc_set_error(RC_ERR_NOT_FOUND, "no contact with index %d (there are %d)", index, w->nrec);
    rcm_contact_info_of(w, &w->rec[index], info);
    return RC_OK;
}

int rc_named_contact_count(const rc_world *w) { return w ? w->nslots : 0; }

const char *rc_named_contact_name(const rc_world *w, int index)
{
    return (w && index >= 0 && index < w->nslots) ? w->slots[index].name : NULL;
}

static const rc_contact_rec *find_key(const rc_contact_rec *c, int n, uint64_t key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c[mid].key == key) return &c[mid];
        if (c[mid].key < key) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

rc_status rc_named_contact_get(const rc_world *w, int index, rc_contact_info *info)
{
    if (!w || !info) return rc_set_error(RC_ERR_ARG, "rc_named_contact_get: NULL argument");
    if (index < 0 || index >= w->nslots)
        return rc_set_error(RC_ERR_NOT_FOUND, "no named contact with index %d", index);
    const rc_contact_rec *c = find_key(w->rec, w->nrec, w->slots[index].key);
    if (c) { rcm_contact_info_of(w, c, info); return RC_OK; }
    memset(info, 0, sizeof *info);
    info->id = -1;
    info->law = -1;
    info->gN = info->uN = info->uT = info->pN = info->pT = info->WN = info->WT = NAN;
    return RC_OK;
}
