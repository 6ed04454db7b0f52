/* configure.c -- rc_world_configure: the scheme's own checks (its table
 * entry), then the settings every scheme shares (model/world.c), then what
 * the scheme decides for the joints' rows (where they are evaluated, when
 * their rate is taken), resolved once into the world for model/joint.c. */
#include "integrate/integrate.h"
#include "model/beam.h"

/* The default (no projection: the papers' schemes): Moreau--Jean imposes the
 * rows on v_{k+1}: the Jacobian at the predicted end of the step, q_k + h v_k
 * (eq. 50c of Bruls, Acary & Cardona 2014, explicit), where the leading
 * drift h^2 a (3/2 - s - theta) vanishes for theta = 1/2 and nearly for the
 * paper's 0.5556; from theta = 3/4 on the midpoint cancels more of it (all
 * of it at theta = 1, Maury's scheme included). Moreau--Jean--Fremond
 * imposes them on the velocity that moves the positions (v_{k+theta}): the
 * midpoint, where h^2 a (1/2 - s) vanishes. With the projection (an option),
 * q_k and v_k satisfy the rows at q_k (g = 0, H v = 0): the rows at q_k then
 * do no work (u_{k+theta}^T lambda = 0) and the projection removes the
 * drift; rows at a predicted q* would do (1 - theta) lambda^T H(q*) v_k =
 * O(h^2) of work per step (docs/theory/joints-and-linear-systems.md). */
rc_joint_jacobian rc_sim_joint_jacobian(const rc_sim_def *def)
{
    if (!def) return RC_JOINT_JACOBIAN_END;
    if (def->joint_jacobian != RC_JOINT_JACOBIAN_AUTO) return def->joint_jacobian;
    if (def->project_joints) return RC_JOINT_JACOBIAN_START;
    const rci_scheme *sc = rci_scheme_of(def->scheme);
    return sc ? sc->joint_jacobian(def) : RC_JOINT_JACOBIAN_END;   /* the scheme's default */
}

/* The settings every scheme shares (model/world.c), then the scheme's own
 * (its table entry); what: the messages' prefix ("simulation" and
 * "solver" when NULL). */
rc_status rc_sim_def_check(const rc_sim_def *def, const char *what)
{
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_sim_def_check: 'def' is NULL");
    const char *sw = what ? what : "simulation";
    char sv[160];
    snprintf(sv, sizeof sv, "%s%ssolver", what ? what : "", what ? ": " : "");
    const rci_scheme *sc = rci_scheme_of(def->scheme);
    if (!sc) return rc_set_error(RC_ERR_ARG, "%s: unknown 'scheme' %d", sw, (int)def->scheme);
    RC_CHECK(rcm_sim_check_shared(def, sw, sv));
    return sc->check ? sc->check(def, sw) : RC_OK;
}

rc_status rc_world_configure(rc_world *w, const rc_sim_def *def)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_world_configure: NULL argument");
    RC_CHECK(rc_sim_def_check(def, NULL));
    if (w->nrigid3d && def->scheme != RC_SCHEME_MOREAU_JEAN && def->scheme != RC_SCHEME_MOREAU_JEAN_FREMOND
        && def->scheme != RC_SCHEME_GEN_ALPHA)
        return rc_set_error(RC_ERR_ARG, "simulation: spatial bodies are integrated by moreau-jean, moreau-jean-fremond and "
                            "gen-alpha only (got '%s')", rci_scheme_of(def->scheme)->name);
    if (w->nrigid3d && def->scheme == RC_SCHEME_GEN_ALPHA && def->gen_alpha.sequential)
        return rc_set_error(RC_ERR_ARG, "simulation: gen-alpha's strategy \"sequential\" is not available on spatial bodies "
                            "(their step has no constraint blocks to split; use the default \"monolithic\")");
    if (rcm_beam_joint_rows(w) && (def->scheme != RC_SCHEME_GEN_ALPHA || def->gen_alpha.variant == RC_GA_BRULS))
        return rc_set_error(RC_ERR_ARG, "simulation: beam joints (rc_beam_joint_create) are integrated by gen-alpha, variant "
                            "\"capobianco2021\", only (got '%s'%s)", rci_scheme_of(def->scheme)->name,
                            def->scheme == RC_SCHEME_GEN_ALPHA ? ", variant \"bruls2014\"" : "");
    if (w->def.dim == 3 && (def->solver.method == RC_SOLVER_UZAWA || def->solver.method == RC_SOLVER_APGD))
        return rc_set_error(RC_ERR_ARG, "simulation: solver '%s' does not solve 3D contacts; a dim = 3 world takes "
                            "\"nsgs\" or \"newton\"", rc_solver_name(def->solver.method));
    if (w->def.dim == 3 && def->solver.method == RC_SOLVER_NEWTON && def->solver.linear == RC_NEWTON_LINEAR_SPARSE)
        return rc_set_error(RC_ERR_ARG, "simulation: solver 'linear' = \"sparse\" solves planar contacts; a dim = 3 world's "
                            "Newton takes \"auto\", \"dense\" or \"iterative\"");
    if (def->solver.skip_quiet > 0.0 && def->solver.anderson > 0)
        return rc_set_error(RC_ERR_ARG, "simulation: solver 'skip_quiet' and accelerate = \"anderson\" do not go together "
                            "(Anderson's sweeps visit every contact)");
    if (def->solver.norm == RC_NORM_SICONOS && (w->def.dim != 3 || def->solver.method != RC_SOLVER_NSGS || def->solver.anderson > 0))
        return rc_set_error(RC_ERR_ARG, "simulation: solver 'norm' = \"siconos\" is a stopping test of the 3D contacts' NSGS "
                            "(a dim = 3 world, solver \"nsgs\" without accelerate = \"anderson\")");
    if (def->solver.norm == RC_NORM_MAX && w->def.dim == 3 && (def->solver.method != RC_SOLVER_NSGS || def->solver.anderson > 0))
        return rc_set_error(RC_ERR_ARG, "simulation: solver 'norm' = \"max\" in a dim = 3 world is a stopping test of its NSGS "
                            "(solver \"nsgs\" without accelerate = \"anderson\")");
    if (def->solver.skip_quiet > 0.0 && w->def.dim != 3)
        return rc_set_error(RC_ERR_ARG, "simulation: solver 'skip_quiet' is an option of the 3D contacts' NSGS (a dim = 3 world)");
    RC_CHECK(rcm_world_configure(w, def));
    const rci_scheme *sc = rci_scheme_of(def->scheme);
    w->joint_at = rc_sim_joint_jacobian(def);
    w->joint_rate_s = sc->joint_rate_time(def);
    return RC_OK;
}
