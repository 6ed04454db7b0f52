/* joint_energy.c -- the energy of jointed bodies: a body's kinetic and
 * gravity energy, the mechanisms (bodies connected by joints, union-find),
 * and the energy that project_joints' projections changed, given back
 * through the mechanisms' kinetic energy (joint.c has the overview). */
#include "model/model.h"

#include <math.h>
#include <string.h>

double rcm_body_energy(const rc_world *w, int b)
{
    const rc_body *bd = &w->bodies[b];
    if (bd->kind != RC_BODY_RIGID2D) return 0.0;   /* linear bodies (no joints): q, v may have < 3 entries */
    const double *q = w->q + bd->iq, *v = w->v + bd->iv, *g = w->def.gravity;
    const double m = rcm_body_mass(w, bd), J = rcm_body_inertia(w, bd);
    return 0.5 * (m * (v[0] * v[0] + v[1] * v[1]) + J * v[2] * v[2])
         - m * (g[0] * q[0] + g[1] * q[1]);
}

static int find(int *c, int x)
{
    while (c[x] != x) { c[x] = c[c[x]]; x = c[x]; }
    return x;
}

/* Mechanisms: bodies connected by joints (union-find in w->comp); a
 * component driven by a rheonomic joint is marked -1 (its root). */
static void components(rc_world *w)
{
    int *c = w->comp;
    for (int b = 0; b < w->nbodies; b++) c[b] = b;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        if (j->def.body_a == RC_GROUND || !j->rows) continue;   /* (!rows: removed) */
        int ra = find(c, j->def.body_a), rb = find(c, j->def.body_b);
        if (ra != rb) c[ra] = rb;
    }
    for (int b = 0; b < w->nbodies; b++) c[b] = find(c, b);
}

/* Energies of the jointed bodies before the projections. */
void rcm_joints_energy_before(rc_world *w)
{
    for (int b = 0; b < w->nbodies; b++) w->ebody[b] = rcm_body_energy(w, b);
}

/* After the projections: give back to (or take from) the kinetic energy of
 * each mechanism (bodies connected by joints) what the projections changed
 * in it, by scaling its velocities, which keeps scleronomic rows H v = 0.
 * Mechanisms with a rheonomic joint (driven: not conservative) and those
 * whose kinetic energy cannot absorb the change are left as they are; what
 * remains shows in W_proj. */
void rcm_joints_restore_energy(rc_world *w)
{
    if (!w->njoints) return;
    components(w);
    int *c = w->comp;
    for (int i = 0; i < w->njoints; i++) {
        const rc_joint *j = &w->joints[i];
        int driven = j->def.type == RC_JOINT_PRESCRIBED;
        if (j->def.type == RC_JOINT_CUSTOM) {   /* driven if g depends on t */
            double g[3], gt[3];
            driven = rcm_joint_eval(w, j, w->q, w->t, g, NULL, NULL, gt) != RC_OK;
            for (int r = 0; r < j->rows && !driven; r++) driven = fabs(gt[r]) > 1e-12 * (1.0 + fabs(g[r]));
        }
        if (driven) {
            int r = c[j->def.body_b];
            for (int b = 0; b < w->nbodies; b++) if (c[b] == r) c[b] = -1;
        }
    }
    for (int root = 0; root < w->nbodies; root++) {
        if (c[root] != root) continue;
        int jointed = 0;
        for (int i = 0; i < w->njoints && !jointed; i++) jointed = c[w->joints[i].def.body_b] == root;
        if (!jointed) continue;
        double dE = 0.0, K = 0.0;
        for (int b = 0; b < w->nbodies; b++) {
            if (c[b] != root) continue;
            dE += rcm_body_energy(w, b) - w->ebody[b];
            const rc_body *bd = &w->bodies[b];
            if (bd->kind != RC_BODY_RIGID2D) continue;   /* never jointed */
            const double *v = w->v + bd->iv;
            const double m = rcm_body_mass(w, bd), J = rcm_body_inertia(w, bd);
            K += 0.5 * (m * (v[0] * v[0] + v[1] * v[1]) + J * v[2] * v[2]);
        }
        double K1 = K - dE;
        if (!(K > 0.0) || !(K1 >= 0.0)) continue;
        double a = sqrt(K1 / K);
        for (int b = 0; b < w->nbodies; b++) {
            if (c[b] != root || w->bodies[b].kind != RC_BODY_RIGID2D) continue;
            double *v = w->v + w->bodies[b].iv;
            for (int k = 0; k < 3; k++) v[k] *= a;
        }
    }
}
