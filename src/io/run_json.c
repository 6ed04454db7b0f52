/* run_json.c -- DIR/run.json: the run's record (status, figures, columns),
 * written atomically or in place within its padding; output.c has the
 * overview. */
#define _POSIX_C_SOURCE 200809L

#include "io/output_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- run.json */

static void rc__json_str(FILE *f, const char *s)
{
    if (!s) { fputs("null", f); return; }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t k = rco_utf8_seq((const char *)p);
        if (k == 0) {   /* not UTF-8: the byte as the text \xHH */
            fprintf(f, "\\\\x%02x", (unsigned)*p);
            continue;
        }
        if (k > 1) {
            fwrite(p, 1, k, f);
            p += k - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", (unsigned)*p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* Shortest of %.15g/%.16g/%.17g that reads back exactly; null if not finite. */
static void rc__json_num(FILE *f, double x)
{
    if (!rcb_finite(x)) { fputs("null", f); return; }
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, x);
        if (strtod(b, NULL) == x) break;
    }
    fputs(b, f);
}

static void rc__json_key(FILE *f, int indent, const char *key)
{
    for (int i = 0; i < indent; i++) fputs("  ", f);
    rc__json_str(f, key);
    fputs(": ", f);
}

/* A JSON text given by the caller, with bytes that are not UTF-8 as \\xHH
 * (they can only be inside its strings). */
static void rc__json_raw(FILE *f, const char *s)
{
    for (const char *p = s; *p;) {
        size_t k = rco_utf8_seq(p);
        if (k == 0) { fprintf(f, "\\\\x%02x", (unsigned)(unsigned char)*p); p++; continue; }
        fwrite(p, 1, k, f);
        p += k;
    }
}

/* Write the file path (O_TRUNC): text, then `pad` blanks; fsync. 0 or errno. */
static int rc__write_file(const char *path, const char *text, size_t len, size_t pad)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return errno ? errno : EIO;
    int e = rco_pwrite_all(fd, text, len, 0);
    char line[256];
    memset(line, ' ', sizeof line);
    for (size_t done = 0; !e && done < pad;) {
        size_t k = pad - done < sizeof line ? pad - done : sizeof line;
        if (done + k == pad) line[k - 1] = '\n';
        e = rco_pwrite_all(fd, line, k, (off_t)(len + done));
        done += k;
    }
    if (!e && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e = errno;
    if (close(fd) != 0 && !e) e = errno;
    return e;
}

/* run.json: atomically (run.json.tmp, rename); failing that (a full disk: no
 * room for a new file), over the old run.json in place, within its size. */
static rc_status rc__json_commit(struct rc_output *o, const char *text, size_t len, size_t pad)
{
    int e = rc__write_file(o->json_tmp, text, len, pad);
    if (!e) {
        if (rename(o->json_tmp, o->json_path) == 0) return RC_OK;
        e = errno;
    }
    remove(o->json_tmp);
    int fd = open(o->json_path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        int e2 = rco_pwrite_all(fd, text, len, 0);
        if (!e2 && ftruncate(fd, (off_t)len) != 0) e2 = errno;
        if (!e2 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e2 = errno;
        if (close(fd) != 0 && !e2) e2 = errno;
        if (!e2) return RC_OK;
    }
    return rc_set_error(RC_ERR_IO, "cannot write %s: %s", o->json_tmp, strerror(e));
}

/* run.json's sections (rco_write_json): the scheme and the solver, with the
 * solver's figures; the joints. sim is read only when have_sim. */
static void json_settings(FILE *f, int have_sim, const rc_sim_def *sim, const rc_run_stats *st)
{
    rc__json_key(f, 1, "scheme");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, rc_scheme_name(sim->scheme));
    fputs(",\n", f);
    rc__json_key(f, 1, "theta"); rc__json_num(f, have_sim ? sim->theta : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "h"); rc__json_num(f, have_sim ? sim->h : NAN); fputs(",\n", f);
    rc__json_key(f, 1, "activation");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim->activation == RC_ACTIVATE_ANTICIPATE ? "anticipate" : "gap");
    fputs(",\n", f);
    rc__json_key(f, 1, "gamma"); rc__json_num(f, have_sim ? sim->gamma : NAN); fputs(",\n", f);

    rc__json_key(f, 1, "solver"); fputs("{\n", f);
    rc__json_key(f, 2, "name");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, rc_solver_name(sim->solver.method));
    fputs(",\n", f);
    rc__json_key(f, 2, "tol"); rc__json_num(f, have_sim ? sim->solver.tol : NAN); fputs(",\n", f);
    rc__json_key(f, 2, "max_iter");
    if (have_sim) fprintf(f, "%d", sim->solver.max_iter); else fputs("null", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "on_fail");
    if (!have_sim) fputs("null", f);
    else rc__json_str(f, sim->solver.on_fail == RC_ON_FAIL_ERROR ? "error" : "warn");
    fputs(",\n", f);
    rc__json_key(f, 2, "warm_start");
    fputs(!have_sim ? "null" : sim->solver.warm_start ? "true" : "false", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "max_iterations"); fprintf(f, "%d", st->max_iterations); fputs(",\n", f);
    rc__json_key(f, 2, "max_residual"); rc__json_num(f, st->max_residual); fputs(",\n", f);
    rc__json_key(f, 2, "failures"); fprintf(f, "%ld", st->failures); fputs(",\n", f);
    rc__json_key(f, 2, "local_solves"); fprintf(f, "%ld", st->local_solves); fputs(",\n", f);
    /* steps the Newton solver handed to NSGS, or gen-alpha's Newton to its fixed point */
    rc__json_key(f, 2, "newton_fallbacks"); fprintf(f, "%ld", st->newton_fallbacks); fputs(",\n", f);
    rc__json_key(f, 2, "cpu_s"); rc__json_num(f, st->solver_cpu_s); fputs("\n", f);
    fputs("  },\n", f);
}

/* project_contacts (an option): the position projection's settings and
 * what it did over the run (integrate/project_contacts.c) */
static void json_contact_projection(FILE *f, const rc_sim_def *sim, const rc_run_stats *st)
{
    rc__json_key(f, 1, "contact_projection"); fputs("{\n", f);
    rc__json_key(f, 2, "project_tol"); rc__json_num(f, sim->project_tol); fputs(",\n", f);
    rc__json_key(f, 2, "project_max_iter"); fprintf(f, "%d", sim->project_max_iter); fputs(",\n", f);
    rc__json_key(f, 2, "max_proj_overlap"); rc__json_num(f, st->max_proj_overlap); fputs(",\n", f);
    rc__json_key(f, 2, "max_proj_sweeps"); fprintf(f, "%d", st->max_proj_sweeps); fputs(",\n", f);
    rc__json_key(f, 2, "proj_capped"); fprintf(f, "%ld", st->proj_capped); fputs(",\n", f);
    rc__json_key(f, 2, "W_proj_contacts"); rc__json_num(f, st->W_proj_contacts_total); fputs(",\n", f);
    rc__json_key(f, 2, "max_W_proj_contacts"); rc__json_num(f, st->max_W_proj_contacts); fputs(",\n", f);
    rc__json_key(f, 2, "min_W_proj_contacts"); rc__json_num(f, st->min_W_proj_contacts); fputs(",\n", f);
    rc__json_key(f, 2, "max_W_proj_net"); rc__json_num(f, st->max_W_proj_net); fputs("\n", f);
    fputs("  },\n", f);
}

static void json_joints(FILE *f, rc_world *w, int have_sim, const rc_sim_def *sim, const rc_run_stats *st)
{
    /* the joints: the paper's scheme or the projection, and what it left */
    rc__json_key(f, 1, "joints"); fputs("{\n", f);
    rc__json_key(f, 2, "count"); fprintf(f, "%d", rc_joint_count(w)); fputs(",\n", f);
    rc__json_key(f, 2, "project_joints");
    fputs(!have_sim ? "null" : sim->project_joints ? "true" : "false", f);
    fputs(",\n", f);
    rc__json_key(f, 2, "joint_jacobian");
    if (!have_sim) fputs("null", f);
    else {
        rc_joint_jacobian at = rc_sim_joint_jacobian(sim);
        rc__json_str(f, at == RC_JOINT_JACOBIAN_START ? "start" : at == RC_JOINT_JACOBIAN_MIDPOINT ? "midpoint" : "end");
    }
    fputs(",\n", f);
    rc__json_key(f, 2, "max_pos_violation"); rc__json_num(f, st->max_joint_pos_violation); fputs(",\n", f);
    rc__json_key(f, 2, "max_vel_violation"); rc__json_num(f, st->max_joint_vel_violation);
    fputs("\n  },\n", f);
    if (have_sim && sim->project_contacts) json_contact_projection(f, sim, st);   /* (an option) */
}

/* the bodies removed and the joints broken (model/remove.c, joint_break.c):
 * the first RC_BREAK_LOG of each, and their number; nothing when none */
static void json_removed(FILE *f, const rc_world *w)
{
    if (w->nremoved_since) {
        rc__json_key(f, 1, "removed"); fputs("[", f);
        for (int i = 0; i < w->nremoved_log; i++) {
            const struct rcm_removed *r = &w->removed_log[i];
            fputs(i ? ",\n    {" : "\n    {", f);
            fputs("\"name\": ", f); rc__json_str(f, r->name);
            fprintf(f, ", \"id\": %d, \"generation\": %u, \"t\": ", r->id, r->gen);
            rc__json_num(f, r->t); fputs("}", f);
        }
        fputs("\n  ],\n", f);
        rc__json_key(f, 1, "removed_count"); fprintf(f, "%ld", w->nremoved_since); fputs(",\n", f);
    }
    if (w->nbreak_total) {
        rc__json_key(f, 1, "broken_joints"); fputs("[", f);
        for (int i = 0; i < w->nbreak_log; i++) {
            const rc_joint_break *b = &w->break_log[i];
            fputs(i ? ",\n    {" : "\n    {", f);
            fputs("\"name\": ", f); rc__json_str(f, b->name);
            fprintf(f, ", \"id\": %d, \"t\": ", b->joint);
            rc__json_num(f, b->t); fputs(", \"force\": ", f);
            rc__json_num(f, b->force); fputs(", \"torque\": ", f);
            rc__json_num(f, b->torque); fputs("}", f);
        }
        fputs("\n  ],\n", f);
        rc__json_key(f, 1, "broken_joints_count"); fprintf(f, "%ld", w->nbreak_total); fputs(",\n", f);
    }
}

/* the run's steps at the solver's sweep cap (rc_world_progress_*): the
 * summary's sentence "N of M steps hit the sweep cap; largest residual ..." */
static void json_sweep_cap(FILE *f, rc_world *w)
{
    rc_progress p;
    if (rc_world_progress_get(w, &p, NULL) != RC_OK) return;
    rc__json_key(f, 1, "sweep_cap"); fputs("{\n", f);
    rc__json_key(f, 2, "steps"); fprintf(f, "%ld", p.capped); fputs(",\n", f);
    rc__json_key(f, 2, "of"); fprintf(f, "%ld", p.steps); fputs(",\n", f);
    rc__json_key(f, 2, "max_residual"); rc__json_num(f, p.steps > 0 ? p.max_residual : NAN); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_residual"); rc__json_num(f, p.t_max_residual);
    fputs("\n  },\n", f);
}

/* the final state's springs (not in E: their work is in W_ext) and elastic
 * energy (in E_pot); E_final - E0 - (every W): the balance's defects summed */
static void json_balance_rest(FILE *f, rc_world *w, double defect)
{
    double es = 0.0, el = 0.0, k, pe;
    if (w->nsprings) rcm_springs_forces(w, NULL, &es);
    rcm_energy(w, w->q, w->v, &k, &pe, &el);
    rc__json_key(f, 2, "E_spring"); rc__json_num(f, es); fputs(",\n", f);
    rc__json_key(f, 2, "E_elastic"); rc__json_num(f, el); fputs(",\n", f);
    rc__json_key(f, 2, "balance_total"); rc__json_num(f, defect); fputs(",\n", f);
}

/* The run's largest figures (rc_run_stats), the energy section's last lines. */
static void json_run_maxima(FILE *f, const rc_run_stats *st)
{
    rc__json_key(f, 2, "max_abs_balance"); rc__json_num(f, st->max_abs_balance); fputs(",\n", f);
    rc__json_key(f, 2, "max_contact_work"); rc__json_num(f, st->max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_contact_work"); rc__json_num(f, st->t_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "contact_max_contact_work"); fprintf(f, "%d", st->contact_max_contact_work); fputs(",\n", f);
    rc__json_key(f, 2, "positive_work_events"); fprintf(f, "%ld", st->positive_work_events); fputs(",\n", f);
    rc__json_key(f, 2, "max_energy_increase"); rc__json_num(f, st->max_energy_increase); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_energy_increase"); rc__json_num(f, st->t_max_energy_increase); fputs(",\n", f);
    rc__json_key(f, 2, "max_overlap"); rc__json_num(f, st->max_overlap); fputs(",\n", f);
    rc__json_key(f, 2, "t_max_overlap"); rc__json_num(f, st->t_max_overlap); fputs(",\n", f);
    rc__json_key(f, 2, "step_max_overlap"); fprintf(f, "%ld", st->step_max_overlap); fputs(",\n", f);
    rc__json_key(f, 2, "contact_max_overlap"); fprintf(f, "%d", st->contact_max_overlap);
}

/* Sleeping (docs/sleeping.md), when it was ever enabled: E_sleep in the
 * energy section (returned, for the balance), the counters in their own. */
static double json_sleep_energy(FILE *f, rc_world *w)
{
    rc_step_info info;
    const double es = rc_world_step_count(w) > 0 && rc_world_step_info(w, &info) == RC_OK ? info.E_sleep_total : 0.0;
    rc__json_key(f, 2, "E_sleep"); rc__json_num(f, es); fputs(",\n", f);
    return es;
}

static void json_sleep(FILE *f, rc_world *w)
{
    rc_sleep_info si;
    if (rc_world_sleep_info(w, &si) != RC_OK) return;
    rc__json_key(f, 1, "sleep"); fputs("{\n", f);
    rc__json_key(f, 2, "enabled"); fputs(si.enabled ? "true" : "false", f); fputs(",\n", f);
    rc__json_key(f, 2, "sleeping"); fprintf(f, "%d", si.sleeping); fputs(",\n", f);
    rc__json_key(f, 2, "awake"); fprintf(f, "%d", si.awake); fputs(",\n", f);
    rc__json_key(f, 2, "steps"); fprintf(f, "%ld", si.steps); fputs(",\n", f);
    rc__json_key(f, 2, "awake_mean"); rc__json_num(f, si.steps > 0 ? si.awake_sum / (double)si.steps : 0.0);
    fputs("\n  },\n", f);
}

/* the history's period, its rows and the file that holds them */
static void json_history(FILE *f, const struct rc_output *o)
{
    rc__json_key(f, 1, "every"); fprintf(f, "%d,\n", o->every);
    rc__json_key(f, 1, "rows"); fprintf(f, "%ld,\n", o->rows);
    rc__json_key(f, 1, "history"); rc__json_str(f, o->binary ? "history.bin" : "history.csv.gz"); fputs(",\n", f);
}

rc_status rco_write_json(rc_world *w, const char *status, int complete,
                         const char *message, double cpu_s, double wall_s)
{
    struct rc_output *o = w->out;
    rc_sim_def sim;
    int have_sim = rc_world_get_sim_def(w, &sim) == RC_OK;
    rc_run_stats st;
    if (rc_world_run_stats(w, &st) != RC_OK) {
        memset(&st, 0, sizeof st);
        st.max_residual = NAN;
        st.max_abs_balance = NAN;
        st.max_contact_work = NAN;
        st.t_max_contact_work = NAN;
        st.max_energy_increase = NAN;
        st.t_max_energy_increase = NAN;
        st.max_overlap = st.t_max_overlap = NAN;
        st.contact_max_overlap = -1;
    }
    double wext = 0, wn = 0, wt = 0, wth = 0, wj = 0, wp = 0, eproj = 0, wd = 0;
    if (rc_world_step_count(w) > 0) {
        rc_step_info info;
        if (rc_world_step_info(w, &info) == RC_OK) {
            wext = info.W_ext_total; wn = info.W_N_total;
            wt = info.W_T_total; wth = info.W_theta_total;
            wj = info.W_J_total; wp = info.W_proj_total; eproj = info.E_proj_total; wd = info.W_damp_total;
        } else {
            wext = wn = wt = wth = wj = wp = eproj = wd = NAN;
        }
    }
    double ek = NAN, ep = NAN;
    if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return rc_set_error(RC_ERR_NOMEM, "cannot write %s: out of memory", o->json_path);

    fputs("{\n", f);
    rc__json_key(f, 1, "ricochet_version"); rc__json_str(f, RC_VERSION); fputs(",\n", f);
    rc__json_key(f, 1, "scenario"); rc__json_str(f, o->scenario); fputs(",\n", f);
    rc__json_key(f, 1, "status"); rc__json_str(f, status); fputs(",\n", f);
    rc__json_key(f, 1, "complete"); fputs(complete ? "true" : "false", f); fputs(",\n", f);
    rc__json_key(f, 1, "message"); rc__json_str(f, message); fputs(",\n", f);
    rc__json_key(f, 1, "signal");
    {
        int sig = strcmp(status, "interrupted") == 0 ? rc_interrupt_signal() : 0;
        const char *name = rc_signal_name(sig);
        if (name) rc__json_str(f, name);
        else if (sig > 0) fprintf(f, "%d", sig);
        else fputs("null", f);
    }
    fputs(",\n", f);
    rc__json_key(f, 1, "exit_code");
    if (o->has_exit_code && strcmp(status, "exited") == 0) fprintf(f, "%d", o->exit_code);
    else fputs("null", f);
    fputs(",\n", f);

    json_settings(f, have_sim, &sim, &st);
    json_sweep_cap(f, w);


    rc__json_key(f, 1, "steps"); fprintf(f, "%ld", rc_world_step_count(w)); fputs(",\n", f);
    rc__json_key(f, 1, "memory_bytes"); fprintf(f, "%zu", st.memory_bytes); fputs(",\n", f);
    rc__json_key(f, 1, "T"); rc__json_num(f, o->T); fputs(",\n", f);
    rc__json_key(f, 1, "t_final"); rc__json_num(f, rc_world_time(w)); fputs(",\n", f);
    rc__json_key(f, 1, "cpu_s"); rc__json_num(f, cpu_s); fputs(",\n", f);
    rc__json_key(f, 1, "wall_s"); rc__json_num(f, wall_s); fputs(",\n", f);
    json_history(f, o);

    rc__json_key(f, 1, "energy"); fputs("{\n", f);
    rc__json_key(f, 2, "E0"); rc__json_num(f, o->E0); fputs(",\n", f);
    rc__json_key(f, 2, "E_final"); rc__json_num(f, ek + ep); fputs(",\n", f);
    rc__json_key(f, 2, "W_ext"); rc__json_num(f, wext); fputs(",\n", f);
    rc__json_key(f, 2, "W_N"); rc__json_num(f, wn); fputs(",\n", f);
    rc__json_key(f, 2, "W_T"); rc__json_num(f, wt); fputs(",\n", f);
    rc__json_key(f, 2, "W_theta"); rc__json_num(f, wth); fputs(",\n", f);
    rc__json_key(f, 2, "W_J"); rc__json_num(f, wj); fputs(",\n", f);
    rc__json_key(f, 2, "W_proj"); rc__json_num(f, wp); fputs(",\n", f);
    rc__json_key(f, 2, "E_proj"); rc__json_num(f, eproj); fputs(",\n", f);
    rc__json_key(f, 2, "W_damp"); rc__json_num(f, wd); fputs(",\n", f);
    double wm = 0.0;   /* the joint motors' work, when the history has it (output.c) */
    if (o->motor_work) {
        rc_step_info info;
        if (rc_world_step_count(w) > 0) wm = rc_world_step_info(w, &info) == RC_OK ? info.W_motor_total : NAN;
        rc__json_key(f, 2, "W_motor"); rc__json_num(f, wm); fputs(",\n", f);
    }
    if (w->nremoved) {   /* the removed bodies' energy (model/remove.c) */
        rc__json_key(f, 2, "E_removed"); rc__json_num(f, w->E_removed); fputs(",\n", f);
    }
    const double es = w->sleep ? json_sleep_energy(f, w) : 0.0;
    json_balance_rest(f, w, (ek + ep) + w->E_removed + es - o->E0 - (wext + wn + wt + wth + wj + wp + wd) - wm);
    json_run_maxima(f, &st);
    fputs("\n  },\n", f);

    json_joints(f, w, have_sim, &sim, &st);
    json_removed(f, w);
    if (w->sleep) json_sleep(f, w);

    rc__json_key(f, 1, "columns"); fputs("[", f);
    for (int i = 0; i < o->ncols; i++) {
        fputs(i ? ", " : "", f);
        rc__json_str(f, o->cols[i]);
    }
    fputs("],\n", f);
    rc__json_key(f, 1, "params");
    if (o->params) rc__json_raw(f, o->params); else fputs("{}", f);
    fputs("\n}\n", f);

    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || !text) {
        free(text);
        return rc_set_error(RC_ERR_NOMEM, "cannot write %s: out of memory", o->json_path);
    }
    /* the "running" version keeps room for the final one (a full disk) */
    rc_status s = rc__json_commit(o, text, len, strcmp(status, "running") == 0 ? RC_OUT_JSON_RESERVE : 0);
    free(text);
    return s;
}
