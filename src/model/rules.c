/* rules.c -- laws (built-in and custom), contact rules, the law of a shape
 * pair, named contacts (slots). */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- laws */

rc_status rcm_law_def_check(const rc_law_def *d, const char *what)
{
    char got[RCB_SHOW_SIZE];
    if (d->type != RC_LAW_NEWTON_COULOMB && d->type != RC_LAW_MOREAU && d->type != RC_LAW_FREMOND)
        return rc_set_error(RC_ERR_ARG, "%s: unknown law type %d (custom laws: rc_law_create_custom)", what, (int)d->type);
    if (d->type == RC_LAW_MOREAU && (!rcb_finite(d->e_t) || d->e_t < -1.0 || d->e_t > 1.0))
        return rc_set_error(RC_ERR_ARG, "%s: 'e_t' must be in [-1, 1] (got %s)", what, rcb_show(got, d->e_t));
    if (!rcb_finite(d->e) || d->e < 0.0 || d->e > 1.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'e' must be in [0, 1] (got %s)", what, rcb_show(got, d->e));
    if (!rcb_finite(d->mu) || d->mu < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'mu' must be >= 0 (got %s)", what, rcb_show(got, d->mu));
    if (!rcb_finite(d->radius) || d->radius < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: 'radius' must be >= 0 (got %s)", what, rcb_show(got, d->radius));
    return RC_OK;
}

rc_status rc_law_def_check(const rc_law_def *def, const char *what)
{
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_law_def_check: 'def' is NULL");
    return rcm_law_def_check(def, what ? what : def->name ? def->name : "law");
}

/* Grow the law array; built-in laws point at themselves (ops.user), so
 * re-point them after a move. */
static rc_status reserve_laws(rc_world *w)
{
    RC_CHECK(rcb_reserve((void **)&w->laws, &w->cap_laws, w->nlaws + 1, sizeof(rc_law)));
    for (int i = 0; i < w->nlaws; i++)
        if (w->laws[i].def.type != RC_LAW_CUSTOM) w->laws[i].ops.user = &w->laws[i];
    return RC_OK;
}

rc_status rc_law_create(rc_world *w, const rc_law_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_law_create: NULL argument");
    RC_CHECK(rcm_law_def_check(def, def->name ? def->name : "law"));
    RC_CHECK(reserve_laws(w));
    rc_law *l = &w->laws[w->nlaws];
    memset(l, 0, sizeof *l);
    l->def = *def;
    l->name = rcb_strdup(def->name);
    if (def->name && !l->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    l->def.name = l->name;
    if (l->def.type == RC_LAW_FREMOND) l->def.e_t = 1.0;
    rcm_law_init_builtin(l);
    l->closed_form = !def->generic;
    if (out_id) *out_id = w->nlaws;
    w->nlaws++;
    return RC_OK;
}

rc_status rc_law_create_custom(rc_world *w, const rc_law_ops *ops, const char *name, int *out_id)
{
    if (!w || !ops) return rc_set_error(RC_ERR_ARG, "rc_law_create_custom: NULL argument");
    const char *what = name ? name : "(unnamed)";
    if (ops->dim < 1 || ops->dim > RC_LAW_MAX_DIM)
        return rc_set_error(RC_ERR_ARG, "law '%s': 'dim' must be 1, 2 or 3 (got %d)", what, ops->dim);
    if (!ops->xi) return rc_set_error(RC_ERR_ARG, "law '%s': 'xi' is missing", what);
    if (!ops->project) return rc_set_error(RC_ERR_ARG, "law '%s': 'project' is missing", what);
    if (ops->nstate < 0 || ops->nstate > RC_LAW_MAX_STATE)
        return rc_set_error(RC_ERR_ARG, "law '%s': 'state' has %d values (at most %d)", what, ops->nstate, RC_LAW_MAX_STATE);
    RC_CHECK(rcm_check_vec(ops->state0, ops->nstate, "law", "state"));
    RC_CHECK(reserve_laws(w));
    rc_law *l = &w->laws[w->nlaws];
    memset(l, 0, sizeof *l);
    l->def = rc_default_law_def();
    l->def.type = RC_LAW_CUSTOM;
    l->name = rcb_strdup(name);
    if (name && !l->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    l->def.name = l->name;
    l->ops = *ops;
    l->closed_form = 0;
    if (out_id) *out_id = w->nlaws;
    w->nlaws++;
    return RC_OK;
}

/* Every contact of a world is planar (dimension 2): a law of dim 3 (spatial
 * friction, two tangents) is created but refused where it would govern one. */
rc_status rcm_law_planar_check(const rc_world *w, int id)
{
    const rc_law *l = &w->laws[id];
    if (w->def.dim == 3 && l->def.type == RC_LAW_CUSTOM && l->ops.dim == 2)   /* contacts3.c: spatial contacts */
        return rc_set_error(RC_ERR_ARG, "law '%s' has dim = 2 (planar friction, one tangent): the contacts of a dim = 3 world are spatial "
                            "(laws of dim 1 or 3)", l->name ? l->name : "(unnamed)");
    if (w->def.dim == 3) return RC_OK;
    if (l->def.type == RC_LAW_CUSTOM && l->ops.dim > 2)
        return rc_set_error(RC_ERR_ARG, "law '%s' has dim = %d (spatial friction): the contacts of this world are planar (laws of dim 1 or 2)",
                            l->name ? l->name : "(unnamed)", l->ops.dim);
    if (l->def.radius > 0.0 && w->def.dim != 3)
        return rc_set_error(RC_ERR_ARG, "law '%s' is Coulomb--Contensou (radius > 0, drilling friction): only the 3D contacts of a "
                            "dim = 3 world carry it", l->name ? l->name : "(unnamed)");
    return RC_OK;
}

rc_status rc_law_get_def(const rc_world *w, int id, rc_law_def *def)
{
    if (!w || id < 0 || id >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", id);
    if (def) *def = w->laws[id].def;
    return RC_OK;
}

rc_status rc_law_set(rc_world *w, int id, const rc_law_def *def)
{
    if (!w || id < 0 || id >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", id);
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_law_set: 'def' is NULL");
    if (w->laws[id].def.type == RC_LAW_CUSTOM || def->type == RC_LAW_CUSTOM)
        return rc_set_error(RC_ERR_ARG, "law '%s': custom laws are changed through their own parameters",
                            w->laws[id].name ? w->laws[id].name : "(unnamed)");
    RC_CHECK(rcm_law_def_check(def, w->laws[id].name ? w->laws[id].name : "law"));
    if (def->radius > 0.0 && w->def.dim != 3)
        return rc_set_error(RC_ERR_ARG, "law '%s': 'radius' > 0 (Coulomb--Contensou) needs a world of dim = 3",
                            w->laws[id].name ? w->laws[id].name : "(unnamed)");
    w->laws[id].def = *def;
    w->laws[id].def.name = w->laws[id].name;
    w->laws[id].closed_form = !def->generic;
    if (def->type == RC_LAW_FREMOND) w->laws[id].def.e_t = 1.0;
    return RC_OK;
}

/* ---------------------------------------------------------------- rules */

static int rule_matches(const rc_world *w, const rc_rule *r, int sa, int sb)
{
    const rc_shape *a = &w->shapes[sa], *b = &w->shapes[sb];
    int x, y;
    if (r->def.kind == RC_RULE_BODIES) { x = a->body; y = b->body; }
    else { x = a->group; y = b->group; }
    return (r->def.a == x && r->def.b == y) || (r->def.a == y && r->def.b == x);
}

int rcm_world_law_for(const rc_world *w, int sa, int sb)
{
    for (int kind = RC_RULE_BODIES; kind <= RC_RULE_GROUPS; kind++)
        for (int i = w->nrules - 1; i >= 0; i--)
            if ((int)w->rules[i].def.kind == kind && rule_matches(w, &w->rules[i], sa, sb))
                return w->rules[i].def.law;
    return w->default_law;
}

rc_status rc_world_set_default_law(rc_world *w, int law)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_world_set_default_law: world is NULL");
    if (law < 0 || law >= w->nlaws) return rc_set_error(RC_ERR_NOT_FOUND, "no law with id %d", law);
    RC_CHECK(rcm_law_planar_check(w, law));
    w->default_law = law;
    return RC_OK;
}

int rcm_world_pair_is_named(const rc_world *w, int sa, int sb)
{
    for (int i = w->nrules - 1; i >= 0; i--)
        if (w->rules[i].def.kind == RC_RULE_BODIES && rule_matches(w, &w->rules[i], sa, sb))
            return w->rules[i].name != NULL && rcm_world_law_for(w, sa, sb) != RC_NO_CONTACT;
    return 0;
}
/* Named contacts: for each named body rule, every potential contact of every
 * shape pair of the two bodies, named NAME or NAME1..NAMEk. */
rc_status rcm_world_rebuild_slots(rc_world *w)
{
    for (int i = 0; i < w->nslots; i++) rcb_free(w->slots[i].name);
    w->nslots = 0;
    for (int r = 0; r < w->nrules; r++) {
        const rc_rule *rule = &w->rules[r];
        if (rule->def.kind != RC_RULE_BODIES || !rule->name || rule->def.law == RC_NO_CONTACT) continue;
        int total = 0, first = w->nslots;
        for (int pass = 0; pass < 2; pass++) {
            int k = 0;
            for (int i = 0; i < w->nshapes; i++) {
                for (int j = 0; j < w->nshapes; j++) {
                    const rc_shape *si = &w->shapes[i], *sj = &w->shapes[j];
                    if (si->body != rule->def.a || sj->body != rule->def.b) continue;
                    /* A is the ground shape, else the lower index */
                    int sa = i, sb = j;
                    if (sj->body == RC_GROUND || (si->body != RC_GROUND && j < i)) { sa = j; sb = i; }
                    int nf = rcm_shape_feature_count(&w->shapes[sa], &w->shapes[sb]);
                    for (int f = 0; f < nf; f++, k++) {
                        if (pass == 0) continue;
                        RC_CHECK(rcb_reserve((void **)&w->slots, &w->cap_slots, w->nslots + 1, sizeof(rc_slot)));
                        char buf[256];
                        if (total == 1) snprintf(buf, sizeof buf, "%s", rule->name);
                        else snprintf(buf, sizeof buf, "%s%d", rule->name, k + 1);
                        w->slots[w->nslots].name = rcb_strdup(buf);
                        if (!w->slots[w->nslots].name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
                        w->slots[w->nslots].key = rcm_contact_key(sa, sb, f);
                        w->nslots++;
                    }
                }
            }
            if (pass == 0) total = k;
        }
        (void)first;
    }
    for (int i = 0; i < w->ngaps; i++) {   /* named gap contacts */
        if (!w->gaps[i].name) continue;
        RC_CHECK(rcb_reserve((void **)&w->slots, &w->cap_slots, w->nslots + 1, sizeof(rc_slot)));
        w->slots[w->nslots].name = rcb_strdup(w->gaps[i].name);
        if (!w->slots[w->nslots].name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
        w->slots[w->nslots].key = ((uint64_t)0xFFFFFF << 40) | ((uint64_t)(uint32_t)i << 16);
        w->nslots++;
    }
    return RC_OK;
}

/* A rigid body named in a contact rule without a shape cannot touch
 * anything (it would fall through the floor): say so at the rule. */
static void warn_shapeless(rc_world *w, int b)
{
    if (b == RC_GROUND || w->bodies[b].kind != RC_BODY_RIGID2D) return;
    for (int i = 0; i < w->nshapes; i++)
        if (w->shapes[i].body == b) return;
    const char *name = rcm_body_name_of(w, b);
    char label[80];
    if (name) snprintf(label, sizeof label, "'%.60s'", name);
    else snprintf(label, sizeof label, "%d", b);
    rcm_world_warn(w, "contact: body %s has no shape: the rule cannot make it touch anything "
                      "(give it a shape: w:body{ ..., shape = ... }, rc_shape_create)", label);
}

rc_status rc_contact_rule(rc_world *w, const rc_contact_rule_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_contact_rule: NULL argument");
    if (def->kind != RC_RULE_BODIES && def->kind != RC_RULE_GROUPS)
        return rc_set_error(RC_ERR_ARG, "contact: unknown rule kind %d", (int)def->kind);
    if (def->law != RC_NO_CONTACT && (def->law < 0 || def->law >= w->nlaws))
        return rc_set_error(RC_ERR_NOT_FOUND, "contact: no law with id %d", def->law);
    if (def->law != RC_NO_CONTACT) RC_CHECK(rcm_law_planar_check(w, def->law));
    if (def->kind == RC_RULE_BODIES) {
        if (def->a != RC_GROUND && !rcm_valid_body(w, def->a))
            return rc_set_error(RC_ERR_NOT_FOUND, "contact: no body with id %d", def->a);
        if (def->b != RC_GROUND && !rcm_valid_body(w, def->b))
            return rc_set_error(RC_ERR_NOT_FOUND, "contact: no body with id %d", def->b);
        if (def->a == def->b)
            return rc_set_error(RC_ERR_ARG, "contact: a body does not contact itself");
    } else if (def->name) {
        return rc_set_error(RC_ERR_ARG, "contact: 'name' is only allowed for a pair of bodies");
    }
    if (def->name) {
        if (!def->name[0]) return rc_set_error(RC_ERR_ARG, "contact: 'name' must not be empty");
        for (int i = 0; i < w->nrules; i++)
            if (w->rules[i].name && strcmp(w->rules[i].name, def->name) == 0)
                return rc_set_error(RC_ERR_ARG, "contact: 'name' \"%s\" is already used", def->name);
    }
    RC_CHECK(rcb_reserve((void **)&w->rules, &w->cap_rules, w->nrules + 1, sizeof(rc_rule)));
    rc_rule *r = &w->rules[w->nrules];
    r->def = *def;
    r->name = rcb_strdup(def->name);
    if (def->name && !r->name) return rc_set_error(RC_ERR_NOMEM, "out of memory");
    w->nrules++;
    r->def.name = r->name;
    RC_CHECK(rcm_world_rebuild_slots(w));
    if (def->kind == RC_RULE_BODIES && def->law != RC_NO_CONTACT) {
        warn_shapeless(w, def->a);
        warn_shapeless(w, def->b);
    }
    return RC_OK;
}
