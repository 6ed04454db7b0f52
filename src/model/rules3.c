/* rules3.c -- the law of a 3D contact by the contact rules (rc_contact_rule,
 * w:contact), as rcm_world_law_for does for planar shapes: a body rule
 * {A, B} matches the 3D shapes of bodies A and B (RC_GROUND: every static
 * obstacle, the planes), a group rule {g1, g2} the 3D shapes of groups g1
 * and g2 (rc_shape3_def.group); body rules first, then group rules, the last
 * rule of a kind that matches; the world's default law otherwise. */
#include "model/model.h"

static int rule3_matches(const rcm_c3 *c3, const rc_rule *r, int sa, int sb)
{
    const rcm_shape3 *a = &c3->shapes[sa], *b = &c3->shapes[sb];
    int x, y;
    if (r->def.kind == RC_RULE_BODIES) { x = a->body; y = b->body; }
    else { x = a->group; y = b->group; }
    return (r->def.a == x && r->def.b == y) || (r->def.a == y && r->def.b == x);
}

int rcm_world_law3_for(const rc_world *w, int sa, int sb)
{
    for (int kind = RC_RULE_BODIES; kind <= RC_RULE_GROUPS; kind++)
        for (int i = w->nrules - 1; i >= 0; i--)
            if ((int)w->rules[i].def.kind == kind && rule3_matches(w->c3, &w->rules[i], sa, sb))
                return w->rules[i].def.law;
    return w->default_law;
}
