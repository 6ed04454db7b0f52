/* body3d.c -- spatial rigid bodies (RC_BODY_RIGID3D, dim = 3 worlds):
 * definitions, checks, creation with the inertia tensor diagonalised (the
 * body frame becomes the principal frame), mass properties of homogeneous
 * solids. The dynamics (the body kind's operations) are in rigid3d.c;
 * docs/theory/spatial.md.
 */
#include "model/model.h"
#include "base/rot3.h"

#include <math.h>
#include <string.h>

rc_body3d_def rc_default_body3d_def(void)
{
    rc_body3d_def d;
    memset(&d, 0, sizeof d);
    d.mass = 1.0;
    d.inertia[0] = d.inertia[4] = d.inertia[8] = 1.0;
    d.q[3] = 1.0;
    return d;
}

/* Eigen-decomposition of a symmetric 3x3 J = V diag(d) V^T by cyclic Jacobi
 * rotations (Golub & Van Loan, Matrix Computations, 4th ed., Alg. 8.5.3):
 * V orthogonal with det +1, its columns the principal axes. */
static void sym3_eigen(const double *J, double *d, double *V)
{
    double A[9];
    memcpy(A, J, sizeof A);
    for (int i = 0; i < 9; i++) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        const double off = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
        const double diag = A[0] * A[0] + A[4] * A[4] + A[8] * A[8];
        if (off <= 1e-32 * diag) break;
        for (int p = 0; p < 2; p++)
            for (int r = p + 1; r < 3; r++) {
                const double apr = A[3 * p + r];
                if (apr == 0.0) continue;
                const double tau = (A[3 * r + r] - A[3 * p + p]) / (2.0 * apr);
                const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (int k = 0; k < 3; k++) {   /* A <- A G (columns p, r) */
                    const double akp = A[3 * k + p], akr = A[3 * k + r];
                    A[3 * k + p] = c * akp - s * akr;
                    A[3 * k + r] = s * akp + c * akr;
                }
                for (int k = 0; k < 3; k++) {   /* A <- G^T A (rows p, r) */
                    const double apk = A[3 * p + k], ark = A[3 * r + k];
                    A[3 * p + k] = c * apk - s * ark;
                    A[3 * r + k] = s * apk + c * ark;
                }
                for (int k = 0; k < 3; k++) {   /* V <- V G */
                    const double vkp = V[3 * k + p], vkr = V[3 * k + r];
                    V[3 * k + p] = c * vkp - s * vkr;
                    V[3 * k + r] = s * vkp + c * vkr;
                }
            }
    }
    for (int i = 0; i < 3; i++) d[i] = A[4 * i];
    const double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6])
                     + V[2] * (V[3] * V[7] - V[4] * V[6]);
    if (det < 0.0)
        for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
}

rc_status rc_body3d_def_check(const rc_body3d_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_body3d_def_check: 'def' is NULL");
    if (!what) what = "body";
    if (!rcb_finite(def->mass) || def->mass <= 0.0 || !rcb_finite(1.0 / def->mass))
        return rc_set_error(RC_ERR_ARG, "%s: 'mass' must be > 0 with a finite inverse (got %s)", what, rcb_show(got, def->mass));
    RC_CHECK(rcm_check_vec(def->inertia, 9, what, "inertia"));
    const double *J = def->inertia;
    double big = 0.0;
    for (int i = 0; i < 9; i++) big = fmax(big, fabs(J[i]));
    if (fabs(J[1] - J[3]) > 1e-12 * big || fabs(J[2] - J[6]) > 1e-12 * big || fabs(J[5] - J[7]) > 1e-12 * big)
        return rc_set_error(RC_ERR_ARG, "%s: 'inertia' must be a symmetric tensor (got J12 = %.17g, J21 = %.17g, "
                            "J13 = %.17g, J31 = %.17g, J23 = %.17g, J32 = %.17g)", what, J[1], J[3], J[2], J[6], J[5], J[7]);
    double d[3], V[9];
    sym3_eigen(J, d, V);
    for (int i = 0; i < 3; i++)
        if (!(d[i] > 0.0) || !rcb_finite(1.0 / d[i]))
            return rc_set_error(RC_ERR_ARG, "%s: 'inertia' must be positive definite (principal moments %.17g, %.17g, %.17g)",
                                what, d[0], d[1], d[2]);
    RC_CHECK(rcm_check_vec(def->q, 7, what, "q"));
    RC_CHECK(rcm_check_vec(def->v, 6, what, "v"));
    RC_CHECK(rcm_check_vec(def->force, 6, what, "force"));
    const double qn = rcb_quat_norm(def->q + 3);
    if (!(qn > 0.0) || !rcb_finite(qn))
        return rc_set_error(RC_ERR_ARG, "%s: 'q': the quaternion (qw, qx, qy, qz) must be nonzero (got |q| = %s)", what,
                            rcb_show(got, qn));
    if (def->name && !def->name[0]) return rc_set_error(RC_ERR_ARG, "%s: 'name' must not be empty", what);
    return RC_OK;
}

/* The body's frame made principal: J = P diag(d) P^T, q <- q P (q's
 * rotation composed with P's: world <- user body <- principal), the
 * angular velocity and torque <- P^T (in the principal frame). */
static void principal_frame(const rc_body3d_def *def, double *d, double *q, double *v, double *force)
{
    double P[9], qp[4], qn[4];
    sym3_eigen(def->inertia, d, P);
    memcpy(q, def->q, 7 * sizeof(double));
    memcpy(v, def->v, 6 * sizeof(double));
    memcpy(force, def->force, 6 * sizeof(double));
    rcb_quat_normalize(q + 3);
    const double *J = def->inertia;
    if (J[1] == 0.0 && J[2] == 0.0 && J[5] == 0.0) {   /* already principal: kept as given (no round-off) */
        d[0] = J[0]; d[1] = J[4]; d[2] = J[8];
        return;
    }
    rcb_quat_from_matrix(qp, P);
    rcb_quat_mul(qn, q + 3, qp);
    rcb_quat_normalize(qn);
    memcpy(q + 3, qn, sizeof qn);
    double t[3];
    rcb_quat_rotate_inv(t, qp, v + 3);   /* P^T w */
    memcpy(v + 3, t, sizeof t);
    rcb_quat_rotate_inv(t, qp, force + 3);
    memcpy(force + 3, t, sizeof t);
}

static int is_zero6(const double *f)
{
    static const double zero6[6];
    return memcmp(f, zero6, sizeof zero6) == 0;
}

rc_status rc_body3d_create(rc_world *w, const rc_body3d_def *def, int *out_id)
{
    if (!w || !def) return rc_set_error(RC_ERR_ARG, "rc_body3d_create: NULL argument");
    if (w->def.dim != 3)
        return rc_set_error(RC_ERR_ARG, "body: a spatial body needs a world of dim = 3 (this world has dim = %d)", w->def.dim);
    RC_CHECK(rc_body3d_def_check(def, "body"));
    if (w->configured && w->sim.scheme != RC_SCHEME_MOREAU_JEAN && w->sim.scheme != RC_SCHEME_MOREAU_JEAN_FREMOND
        && w->sim.scheme != RC_SCHEME_GEN_ALPHA)
        return rc_set_error(RC_ERR_ARG, "body: spatial bodies are integrated by moreau-jean, moreau-jean-fremond and gen-alpha only");
    if (def->name) {
        int dup;
        if (rc_body_find(w, def->name, &dup) == RC_OK)
            return rc_set_error(RC_ERR_ARG, "body: 'name' \"%s\" is already used by body %d", def->name, dup);
    }
    double d[3], q[7], v[6], force[6];
    principal_frame(def, d, q, v, force);
    RC_CHECK(rcb_reserve((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof(rc_body)));
    RC_CHECK(rcb_reserve((void **)&w->rigid3d, &w->cap_rigid3d, w->nrigid3d + 1, sizeof(rcm_rigid3d)));
    RC_CHECK(rcm_world_grow_dofs(w, 7, 6));
    rc_body *b = &w->bodies[w->nbodies];
    memset(b, 0, sizeof *b);
    b->ext = -1;
    if (def->name || !is_zero6(force)) {   /* a name, or a force: the world then computes forces */
        RC_CHECK(rcm_body_add_ext(w, w->nbodies));
        rc_body_ext *x = &w->body_ext[b->ext];
        x->name = rcb_strdup(def->name);
        if (def->name && !x->name) {
            w->nbody_ext--;
            return rc_set_error(RC_ERR_NOMEM, "out of memory");
        }
    }
    rcm_rigid3d *r = &w->rigid3d[w->nrigid3d];
    memset(r, 0, sizeof *r);
    r->body = w->nbodies;
    memcpy(r->force, force, sizeof force);
    for (int i = 0; i < 3; i++) r->Ainv[4 * i] = 1.0 / d[i];   /* J^-1 until the first step */
    b->kind = RC_BODY_RIGID3D;
    b->linear = w->nrigid3d;
    b->iq = w->nq; b->iv = w->nv; b->nq = 7; b->nv = 6;
    b->inv_mass = 1.0 / def->mass;
    b->inv_inertia = 0.0;   /* (planar only; rigid3d reads mass_diag and Ainv) */
    memcpy(w->q + b->iq, q, sizeof q);
    memcpy(w->v + b->iv, v, sizeof v);
    double *md = w->mass_diag + b->iv;
    md[0] = md[1] = md[2] = def->mass;
    md[3] = d[0]; md[4] = d[1]; md[5] = d[2];
    w->nq += 7; w->nv += 6;
    if (out_id) *out_id = w->nbodies;
    w->nbodies++;
    w->nrigid3d++;
    return rcm_world_reserve_dofs(w);
}

rc_status rc_body3d_get_mass(const rc_world *w, int id, double *m, double inertia[3])
{
    RC_CHECK(rcm_body_check(w, id, "rc_body3d_get_mass"));
    const rc_body *b = &w->bodies[id];
    if (b->kind != RC_BODY_RIGID3D) return rc_set_error(RC_ERR_ARG, "rc_body3d_get_mass: body %d is not a spatial body", id);
    if (m) *m = w->mass_diag[b->iv];
    if (inertia)
        for (int i = 0; i < 3; i++) inertia[i] = w->mass_diag[b->iv + 3 + i];
    return RC_OK;
}

/* Closed forms: sphere m = 4/3 pi rho r^3, J = 2/5 m r^2; box of
 * half-extents (a, b, c): m = 8 rho a b c, Jx = m (b^2 + c^2) / 3, ...;
 * capsule (radius r, cylinder of half-length l along z, two hemispheres):
 * cylinder m_c = 2 pi rho r^2 l, hemispheres m_h = 2/3 pi rho r^3 each;
 * Jz = m_c r^2 / 2 + 2 (2/5) m_h r^2, Jx = Jy = m_c (r^2 / 4 + l^2 / 3)
 * + 2 m_h (2/5 r^2 + l^2 + 3 l r / 4) (a hemisphere's 83/320 m r^2
 * about its centroid, which lies 3 r / 8 from its base, moved by l + 3 r / 8). */
rc_status rc_solid_mass_properties(rc_solid_kind kind, const double *dims, double rho, double *mass, double inertia[3])
{
    char got[RCB_SHOW_SIZE];
    if (!dims || !mass || !inertia) return rc_set_error(RC_ERR_ARG, "rc_solid_mass_properties: NULL argument");
    if (!rcb_finite(rho) || rho <= 0.0)
        return rc_set_error(RC_ERR_ARG, "solid: 'density' must be > 0 (got %s)", rcb_show(got, rho));
    const int n = kind == RC_SOLID_SPHERE ? 1 : kind == RC_SOLID_BOX ? 3 : kind == RC_SOLID_CAPSULE ? 2 : 0;
    if (!n) return rc_set_error(RC_ERR_ARG, "solid: unknown kind %d", (int)kind);
    static const char *const names[4][3] = { { "" }, { "radius" }, { "half-extent a", "half-extent b", "half-extent c" },
                                              { "radius", "half-length" } };
    for (int i = 0; i < n; i++)
        if (kind == RC_SOLID_CAPSULE && i == 1) {   /* l = 0: a sphere */
            if (!rcb_finite(dims[i]) || dims[i] < 0.0)
                return rc_set_error(RC_ERR_ARG, "solid: the %s must be >= 0 (got %s)", names[kind][i], rcb_show(got, dims[i]));
        } else if (!rcb_finite(dims[i]) || dims[i] <= 0.0) {
            return rc_set_error(RC_ERR_ARG, "solid: the %s must be > 0 (got %s)", names[kind][i], rcb_show(got, dims[i]));
        }
    const double pi = 3.14159265358979323846;
    if (kind == RC_SOLID_SPHERE) {
        const double r = dims[0], m = 4.0 / 3.0 * pi * rho * r * r * r;
        *mass = m;
        inertia[0] = inertia[1] = inertia[2] = 0.4 * m * r * r;
    } else if (kind == RC_SOLID_BOX) {
        const double a = dims[0], b = dims[1], c = dims[2], m = 8.0 * rho * a * b * c;
        *mass = m;
        inertia[0] = m * (b * b + c * c) / 3.0;
        inertia[1] = m * (a * a + c * c) / 3.0;
        inertia[2] = m * (a * a + b * b) / 3.0;
    } else {
        const double r = dims[0], l = dims[1];
        const double mc = 2.0 * pi * rho * r * r * l, mh = 2.0 / 3.0 * pi * rho * r * r * r;
        *mass = mc + 2.0 * mh;
        inertia[2] = 0.5 * mc * r * r + 0.8 * mh * r * r;
        inertia[0] = inertia[1] = mc * (0.25 * r * r + l * l / 3.0) + 2.0 * mh * (0.4 * r * r + l * l + 0.75 * l * r);
    }
    return RC_OK;
}

rc_status rcm_planar_only(const rc_world *w, const char *what)
{
    if (w->def.dim != 3) return RC_OK;
    return rc_set_error(RC_ERR_ARG, "%s: not available in a world of dim = 3 yet (spatial bodies take rc_shape3_create shapes; "
                        "no joints or springs so far)", what);
}

void rcm_rigid3d_free(rc_world *w)
{
    rcm_c3_free(w);
    rcm_j3_free(w);
    rcb_free(w->rigid3d);
    w->rigid3d = NULL;
    w->nrigid3d = w->cap_rigid3d = 0;
}
