/* joint_def.c -- the range checks of a joint's definition and of its motor
 * and limits that do not depend on the world: one place for them, used by
 * rc_joint_create, rc_joint_set_motor, rc_joint_set_limits and by the Lua
 * front end (core.check_def, src/lua/lrc_defs.c), whose messages name the
 * Lua function and the key ("world:revolute: 'limits.e' must be in [0, 1]
 * (got 1.5)"). */
#include "model/model.h"

#include <math.h>
#include <stdio.h>

/* "KEY.name" for a key prefix (a Lua table's key, e.g. "limits"), "name" without */
static const char *keyed(char *buf, size_t n, const char *key, const char *name)
{
    if (!key) return name;
    snprintf(buf, n, "%s.%s", key, name);
    return buf;
}

static rc_status check_break(const rc_joint_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE];
    const char *keys[2] = { "break_force", "break_torque" };
    const double x[2] = { def->break_force, def->break_torque };
    for (int i = 0; i < 2; i++)
        if (!(x[i] >= 0.0))   /* NaN too */
            return rc_set_error(RC_ERR_ARG, "%s: '%s' must be > 0 (got %s; INFINITY or 0: never breaks)", what, keys[i],
                                rcb_show(got, x[i]));
    int limited = 0;
    for (int i = 0; i < 2; i++) limited |= x[i] > 0.0 && !isinf(x[i]);
    if (limited && def->type == RC_JOINT_CUSTOM)
        return rc_set_error(RC_ERR_ARG, "%s: a custom joint cannot break ('break_force', 'break_torque'): its "
                            "rows have the units of its g, not of a force or a torque", what);
    return RC_OK;
}

static rc_status check_kind(const rc_joint_def *def, const char *what)
{
    char got[RCB_SHOW_SIZE];
    switch (def->type) {
    case RC_JOINT_PRESCRIBED:
        if (def->coord < 0 || def->coord > 2)
            return rc_set_error(RC_ERR_ARG, "%s: 'coord' must be 0 (x), 1 (y) or 2 (theta) (got %d)", what, def->coord);
        break;
    case RC_JOINT_CUSTOM:
        if (def->rows < 1 || def->rows > 3)
            return rc_set_error(RC_ERR_ARG, "%s: 'rows' must be 1, 2 or 3 (got %d)", what, def->rows);
        break;
    case RC_JOINT_PRISMATIC:
    case RC_JOINT_LINE:
        if (!(hypot(def->axis[0], def->axis[1]) > 0.0)) return rc_set_error(RC_ERR_ARG, "%s: 'axis' must be nonzero", what);
        break;
    case RC_JOINT_DISTANCE:
        if (!rcb_finite(def->length)) return rc_set_error(RC_ERR_ARG, "%s: 'length' must be finite", what);
        /* < 0 (the default): the initial length; 0 is no rod */
        if (def->length == 0.0) return rc_set_error(RC_ERR_ARG, "%s: 'length' must be > 0 (got %s)", what, rcb_show(got, def->length));
        break;
    default: break;
    }
    if ((def->type == RC_JOINT_WELD || def->type == RC_JOINT_PRISMATIC || def->type == RC_JOINT_REVOLUTE)
        && def->angle == def->angle && !rcb_finite(def->angle))   /* NAN (the default): the initial angle */
        return rc_set_error(RC_ERR_ARG, "%s: 'angle' must be finite", what);
    return RC_OK;
}

rc_status rc_joint_def_check(const rc_joint_def *def, const char *what)
{
    char label[160];
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_joint_def_check: 'def' is NULL");
    if (!what) {
        snprintf(label, sizeof label, "joint '%s'", def->name ? def->name : "(unnamed)");
        what = label;
    }
    if (def->type < RC_JOINT_REVOLUTE || def->type > RC_JOINT_CUSTOM)
        return rc_set_error(RC_ERR_ARG, "%s: unknown type %d", what, (int)def->type);
    for (int i = 0; i < 2; i++)
        if (!rcb_finite(def->point_a[i]) || !rcb_finite(def->point_b[i]) || !rcb_finite(def->axis[i]))
            return rc_set_error(RC_ERR_ARG, "%s: points and axis must be finite", what);
    RC_CHECK(check_kind(def, what));
    return check_break(def, what);
}

rc_status rc_joint_motor_check(double speed, double max_force, const char *what, const char *key, const char *maxkey)
{
    char got[RCB_SHOW_SIZE], k[96];
    if (!what) what = "rc_joint_set_motor";
    if (!maxkey) maxkey = "max_force";
    if (!rcb_finite(speed))
        return rc_set_error(RC_ERR_ARG, "%s: '%s' must be finite (got %s)", what, keyed(k, sizeof k, key, "speed"), rcb_show(got, speed));
    if (!rcb_finite(max_force) || max_force < 0.0)
        return rc_set_error(RC_ERR_ARG, "%s: '%s' must be >= 0 (got %s)", what, keyed(k, sizeof k, key, maxkey), rcb_show(got, max_force));
    return RC_OK;
}

rc_status rc_joint_limits_check(double lower, double upper, double e, const char *what, const char *key)
{
    char got[RCB_SHOW_SIZE], got2[RCB_SHOW_SIZE], k[96], k2[96];
    if (!what) what = "rc_joint_set_limits";
    if (isnan(lower) || isnan(upper) || lower == INFINITY || upper == -INFINITY)
        return rc_set_error(RC_ERR_ARG, "%s: '%s' and '%s' must be numbers (-inf and inf: no bound)", what,
                            keyed(k, sizeof k, key, "lower"), keyed(k2, sizeof k2, key, "upper"));
    if (lower == -INFINITY && upper == INFINITY)
        return rc_set_error(RC_ERR_ARG, "%s: '%s' needs 'lower' or 'upper' (or both)", what, key ? key : "limits");
    if (!(lower < upper))
        return rc_set_error(RC_ERR_ARG, "%s: '%s' (%s) must be < '%s' (%s)", what, keyed(k, sizeof k, key, "lower"),
                            rcb_show(got, lower), keyed(k2, sizeof k2, key, "upper"), rcb_show(got2, upper));
    if (!(e >= 0.0 && e <= 1.0))
        return rc_set_error(RC_ERR_ARG, "%s: '%s' must be in [0, 1] (got %s)", what, keyed(k, sizeof k, key, "e"), rcb_show(got, e));
    return RC_OK;
}
