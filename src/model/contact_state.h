/* contact_state.h -- the contacts a completed step leaves (w->rec, the
 * state): what the next step matches (ids, warm start, law state) and what
 * rc_contact_get reports. Internal to the library. */
#ifndef RCM_CONTACT_STATE_H
#define RCM_CONTACT_STATE_H

#include "ricochet.h"

#include <stdint.h>

/* A contact of the state, sorted by key; shapes, bodies and feature follow
 * from the key (rcm_contact_key). */
typedef struct rc_contact_rec {
    uint64_t key;
    int id;
    unsigned law : 31, active : 1;
    double p[2];
    double WN, WT;          /* the step's normal and tangential works (eq. 68) */
    double nu;              /* gen-alpha's position-level multiplier */
} rc_contact_rec;

/* Its geometry -- point, normal and gap where the last completed step
 * detected it, and its velocity H(q_k) v_{k+1} -- which only reports read,
 * is not copied: after a step it is in the step's own records
 * (w->contacts[i] for w->rec[i], RCM_GEOM_CONTACTS). What else overwrites
 * them first copies it to w->geom (RCM_GEOM_OWN: an exploration; a restore
 * writes it there); a step that fails once its detection has overwritten
 * them leaves the state without it (RCM_GEOM_LOST: rc_contact_get says so)
 * until a step completes. 56 bytes per contact fewer in the state. */
typedef struct rc_contact_geom {
    double point[2], n[2];
    double gN;
    double u[2];
} rc_contact_geom;

enum { RCM_GEOM_CONTACTS, RCM_GEOM_OWN, RCM_GEOM_LOST };

/* contacts.c */
int rcm_state_geom(const rc_world *w, int i, rc_contact_geom *g);   /* state contact i's (0: none) */
rc_status rcm_state_keep_geom(rc_world *w);      /* copied to w->geom, before an exploration */
void rcm_state_geom_leave(rc_world *w);          /* a step's detection overwrites the records */
void rcm_state_geom_in_contacts(rc_world *w);    /* the completed step's records hold it */

#endif
