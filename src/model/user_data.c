/* user_data.c -- a host's data on bodies, shapes, joints and force functions
 * (docs/queries-and-events.md): a pointer and an optional destroy function,
 * called when the data is replaced or the world destroyed.
 *
 * Kept apart from the objects' records (most worlds have none): one array
 * per kind, indexed by id and grown when a slot is set, in a part of the
 * world (rc_part, slot RC_PART_USER) that the world frees first when it is
 * destroyed; the destroy functions run there, bodies, shapes, joints, then
 * force functions, each in id order.
 */
#include "model/model.h"

#include <string.h>

typedef struct rc_user_slot {
    void *data;
    rc_destroy_fn destroy;
} rc_user_slot;

enum { UD_BODY, UD_SHAPE, UD_JOINT, UD_FORCE, UD_KINDS };

typedef struct rc_user_data {
    rc_user_slot *slot[UD_KINDS];
    int n[UD_KINDS], cap[UD_KINDS];
} rc_user_data;

static void user_free(rc_world *w)
{
    rc_user_data *u = w->user;
    if (!u) return;
    w->user = NULL;
    for (int k = 0; k < UD_KINDS; k++) {
        for (int i = 0; i < u->n[k]; i++)
            if (u->slot[k][i].destroy) u->slot[k][i].destroy(u->slot[k][i].data);
        rcb_free(u->slot[k]);
    }
    rcb_free(u);
}

static size_t user_memory(const rc_world *w)
{
    const rc_user_data *u = w->user;
    if (!u) return 0;
    size_t m = sizeof *u;
    for (int k = 0; k < UD_KINDS; k++) m += (size_t)u->cap[k] * sizeof(rc_user_slot);
    return m;
}

static const rc_part user_part = { user_free, user_memory, NULL };

static const char *const kind_name[UD_KINDS] = { "body", "shape", "joint", "body" };

static int count_of(const rc_world *w, int kind)
{
    return kind == UD_SHAPE ? w->nshapes : kind == UD_JOINT ? w->njoints : w->nbodies;
}

/* Store (data, destroy) for object id of a kind; the previous data's destroy
 * function is called (unless it is the same pointer). */
static rc_status set_slot(rc_world *w, int kind, int id, void *data, rc_destroy_fn destroy, const char *fn)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: 'w' is NULL", fn);
    if (id < 0 || id >= count_of(w, kind))
        return rc_set_error(RC_ERR_NOT_FOUND, "%s: no %s with id %d", fn, kind_name[kind], id);
    if (!w->user) {
        rc_user_data *u = rcb_malloc(sizeof *u);
        if (!u) return rc_set_error(RC_ERR_NOMEM, "out of memory (user data)");
        memset(u, 0, sizeof *u);
        w->user = u;
        rcm_world_attach_part(w, RC_PART_USER, &user_part);
    }
    rc_user_data *u = w->user;
    if (id >= u->n[kind]) {
        RC_CHECK(rcb_reserve((void **)&u->slot[kind], &u->cap[kind], id + 1, sizeof(rc_user_slot)));
        memset(u->slot[kind] + u->n[kind], 0, (size_t)(id + 1 - u->n[kind]) * sizeof(rc_user_slot));
        u->n[kind] = id + 1;
    }
    rc_user_slot old = u->slot[kind][id];
    u->slot[kind][id].data = data;
    u->slot[kind][id].destroy = destroy;
    if (old.destroy && old.data != data) old.destroy(old.data);
    return RC_OK;
}

static void *get_slot(const rc_world *w, int kind, int id)
{
    const rc_user_data *u = w ? w->user : NULL;
    return u && id >= 0 && id < u->n[kind] ? u->slot[kind][id].data : NULL;
}

rc_status rc_body_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy)
{
    return set_slot(w, UD_BODY, id, data, destroy, "rc_body_set_user_data");
}
rc_status rc_shape_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy)
{
    return set_slot(w, UD_SHAPE, id, data, destroy, "rc_shape_set_user_data");
}
rc_status rc_joint_set_user_data(rc_world *w, int id, void *data, rc_destroy_fn destroy)
{
    return set_slot(w, UD_JOINT, id, data, destroy, "rc_joint_set_user_data");
}
void *rc_body_user_data(const rc_world *w, int id) { return get_slot(w, UD_BODY, id); }
void *rc_shape_user_data(const rc_world *w, int id) { return get_slot(w, UD_SHAPE, id); }
void *rc_joint_user_data(const rc_world *w, int id) { return get_slot(w, UD_JOINT, id); }

/* The force function with its user pointer, through rc_body_set_force_fn;
 * the destroy function is kept beside (the previous one runs now). */
rc_status rc_body_set_force_fn_ex(rc_world *w, int id, rc_force_fn fn, void *user, rc_destroy_fn destroy)
{
    const char *f = "rc_body_set_force_fn_ex";
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: 'w' is NULL", f);
    if (!rcm_valid_body(w, id)) return rc_set_error(RC_ERR_NOT_FOUND, "%s: no body with id %d", f, id);
    RC_CHECK(rc_body_set_force_fn(w, id, fn, user));
    return set_slot(w, UD_FORCE, id, user, destroy, f);
}
