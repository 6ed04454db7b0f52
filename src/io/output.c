/*
 * output.c -- the run record: DIR/history.csv.gz and DIR/run.json.
 *
 * history.csv.gz: one header line of named columns
 *     t,E,E_kin,E_pot,W_ext,W_N,W_T,
 *     NAME.x,NAME.y,NAME.theta,NAME.vx,NAME.vy,NAME.omega   (named rigid bodies, id order)
 *     (spatial: NAME.x,.y,.z,.qw,.qx,.qy,.qz,.vx,.vy,.vz,.wx,.wy,.wz; 3D contacts: output_c3.c)
 *     NAME.q1..qn,NAME.v1..vn                                (named linear bodies, n <= 6)
 *     JOINT.f1..fm                                           (named joints: reaction forces)
 *     C.gN,C.uN,C.uT,C.pN,C.pT                              (named contacts)
 *     W_J,W_proj,W_theta,W_damp   (the rest of the balance, eq. 65, totals: the joints'
 *                     work, the projection's, the (1/2 - theta) term, damping of linear bodies)
 *     E_spring,E_elastic          (springs' potential, not in E; 1/2 q^T K q, in E_pot)
 *     W_motor                     (joint motors' work, when a joint has a motor)
 *     WT_max_pos,WT_min_neg,dissipation   (a finite-element body: the step's largest positive and
 *                     smallest negative tangential work of a contact, W_N + W_T + W_damp + W_theta)
 *     newton_iterations,newton_residual   (scheme gen-alpha: the step's Newton figures)
 * then one row for the state at open and one after every n-th step. Numbers
 * are printed with %.15g; NaN and infinities as nan, inf, -inf. The stream is
 * sync-flushed every RC_OUT_FLUSH_ROWS rows so that a killed run leaves a
 * readable prefix. A run that does not end with "complete" gets a last line
 * "# incomplete: STATUS: MESSAGE". With format RC_HISTORY_BINARY the same
 * columns and rows go to DIR/history.bin as float64 (output_bin.c: its
 * layout, its end record and the same "# incomplete" line after the rows).
 *
 * run.json: written at open (status "running", complete false, padded with
 * RC_OUT_JSON_RESERVE trailing blanks) and again at close, each time
 * atomically (run.json.tmp, then rename). When that fails (a full disk),
 * run.json is rewritten in place, within the space the padded version holds.
 * Strings are strict JSON: bytes that are not UTF-8 are written as the text
 * \xHH; names (columns) must be UTF-8 and distinct.
 *
 * A write error (full disk, file size limit) is remembered and reported by
 * rc_output_close, which then ends the gzip stream at the last sync flush
 * (RFC 1951 stored block with the "# incomplete" line + RFC 1952 trailer): the
 * history stays a complete stream of whole rows.
 *
 * DIR/run.lock: while the output is open, the folder is locked: flock(2) on
 * run.lock, which holds the writer's pid. Another writer (another process, or
 * another world of this one) is refused with a message naming that pid; a
 * lock file nobody holds (its writer died) is taken over with a warning.
 * Where flock is not supported the pid decides (taken over if the process is
 * gone). The lock file is removed at close.
 *
 * Rows allocate nothing: they are formatted into a buffer sized at open.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/output_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static const char *const rc__fixed_cols[RC_OUT_NFIXED] = {
    "t", "E", "E_kin", "E_pot", "W_ext", "W_N", "W_T"
};
static const char *const rc__rigid_q[3] = { "x", "y", "theta" };
static const char *const rc__rigid_v[3] = { "vx", "vy", "omega" };
static const char *const rc__rigid3_q[7] = { "x", "y", "z", "qw", "qx", "qy", "qz" };   /* spatial bodies */
static const char *const rc__rigid3_v[6] = { "vx", "vy", "vz", "wx", "wy", "wz" };
static const char *const rc__contact_cols[5] = { "gN", "uN", "uT", "pN", "pT" };


/* ---------------------------------------------------------------- rows (output_row.c) */

/* The output's observer: a row after each completed step (every o->every). */
static rc_status rc_output_row(rc_world *w)
{
    if (!w || !w->out) return RC_OK;
    struct rc_output *o = w->out;
    long step = rc_world_step_count(w);
    if (step % o->every != 0) return RC_OK;
    if (step == o->last_step) return RC_OK;   /* this state is already written */
    return rco_write_row(w);
}

/* ---------------------------------------------------------------- open / close */

rc_output_def rc_default_output_def(void)
{
    rc_output_def d;
    memset(&d, 0, sizeof d);
    d.every = 1;
    return d;
}

int rc_output_is_open(const rc_world *w) { return w && w->out != NULL; }

static void rc__output_destroy(struct rc_output *o)
{
    if (!o) return;
    if (o->gz) gzclose(o->gz);
    if (o->fd >= 0) close(o->fd);
    rcb_free(o->row);
    rcb_free(o->bbuf);
    rco_unlock(o);
    rcb_free(o->lock_path);
    rcb_free(o->dir);
    rcb_free(o->hist_path);
    rcb_free(o->json_path);
    rcb_free(o->json_tmp);
    rcb_free(o->scenario);
    rcb_free(o->params);
    rcb_free(o->body_ids);
    rcb_free(o->joint_ids);
    rcb_free(o->joint_rows);
    rcb_free(o->body_nq);
    rcb_free(o->body_nv);
    rcb_free(o->body_gen);
    rco_c3_free(o);
    if (o->cols)
        for (int i = 0; i < o->ncols; i++) rcb_free(o->cols[i]);
    rcb_free(o->cols);
    rcb_free(o->buf);
    rcb_free(o);
}

/* The params text must look like a JSON object: '{' ... '}' (whitespace
 * around allowed). Returns 1 for empty/blank (treated as {}), 0 if fine,
 * -1 if not an object. */
static int rc__check_params(const char *s)
{
    const char *a = s;
    while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r') a++;
    if (!*a) return 1;
    const char *b = s + strlen(s);
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n' || b[-1] == '\r')) b--;
    return (*a == '{' && b[-1] == '}' && b - a >= 2) ? 0 : -1;
}

/* Which name gave column i: "body", "named contact", "joint" (NULL for the
 * fixed ones), its name and its number (from 1) among those. */
static const char *rc__column_origin(const struct rc_output *o, const rc_world *w, int i,
                                     const char **name, int *number)
{
    *name = NULL;
    *number = 0;
    if (i < RC_OUT_NFIXED) return NULL;
    i -= RC_OUT_NFIXED;
    for (int b = 0; b < o->nbodies; b++) {
        int nc = o->body_nq[b] + o->body_nv[b];
        unsigned gen;
        if (i < nc) { *name = rcm_body_column(w, o->body_ids[b], &gen); *number = b + 1; return "body"; }
        i -= nc;
    }
    if (i < 5 * o->ncontacts) {
        *number = i / 5 + 1;
        *name = rc_named_contact_name(w, i / 5);
        return "named contact";
    }
    i -= 5 * o->ncontacts;
    for (int k = 0; k < o->njoints; k++) {
        if (i < o->joint_rows[k]) { *name = rc_joint_name(w, o->joint_ids[k]); *number = k + 1; return "joint"; }
        i -= o->joint_rows[k];
    }
    return NULL;
}

static int rc__strcmp_p(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Column names: UTF-8 (the CSV file is UTF-8) and all distinct (a rule "C"
 * with contacts C1..C4 beside a rule "C2" would write C2.gN twice). */
static rc_status rc__check_columns(const struct rc_output *o, const rc_world *w)
{
    for (int i = 0; i < o->ncols; i++) {
        const char *c = o->cols[i];
        size_t k = 1;
        while (*c && (k = rco_utf8_seq(c)) > 0) c += k;
        if (*c) {
            const char *name;
            int number;
            const char *what = rc__column_origin(o, w, i, &name, &number);
            char shown[256];
            rco_text_escape(shown, sizeof shown, name ? name : o->cols[i]);
            return rc_set_error(RC_ERR_ARG, "rc_output_open: %s name '%s' is not valid UTF-8",
                                what ? what : "column", shown);
        }
    }
    if (o->ncols < 2) return RC_OK;
    char **sorted = rcb_malloc((size_t)o->ncols * sizeof(char *));
    if (!sorted) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memcpy(sorted, o->cols, (size_t)o->ncols * sizeof(char *));
    qsort(sorted, (size_t)o->ncols, sizeof(char *), rc__strcmp_p);
    const char *dup = NULL;
    for (int i = 1; i < o->ncols && !dup; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
    rcb_free(sorted);
    if (!dup) return RC_OK;
    int first = -1, second = -1;
    for (int i = 0; i < o->ncols && second < 0; i++)
        if (strcmp(o->cols[i], dup) == 0) { if (first < 0) first = i; else second = i; }
    const char *na, *nb;
    int ka, kb;
    const char *wa = rc__column_origin(o, w, first, &na, &ka);
    const char *wb = rc__column_origin(o, w, second, &nb, &kb);
    if (wa && wb && strcmp(wa, wb) == 0 && strcmp(wa, "named contact") == 0)
        return rc_set_error(RC_ERR_ARG, "rc_output_open: duplicate column '%s': named contacts %d "
                            "and %d are both called '%s' (a rule whose pair has several potential "
                            "contacts names them NAME1, NAME2, ...); rename one of the rules",
                            dup, ka, kb, nb ? nb : "?");
    return rc_set_error(RC_ERR_ARG, "rc_output_open: duplicate column '%s': %s %d '%s' and %s %d '%s'; "
                        "rename one of them", dup, wa ? wa : "column", ka, na ? na : "?",
                        wb ? wb : "column", kb, nb ? nb : "?");
}

#define RC__NOMEM() do { rc__output_destroy(o); \
    return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory"); } while (0)

static void rc_output_free(rc_world *w);
/* The world closes the output when destroyed and asks it for a row after each
 * step through this table (the step itself writes no file). */
static const rc_part output_part = { rc_output_free, NULL, rc_output_row };

/* rc_output_open's parts: each frees o and returns the status on failure. */

/* The folder (trailing slashes stripped, "/" kept) and the files' paths,
 * the scenario and the parameters. */
static rc_status output_paths(struct rc_output *o, const rc_output_def *def, int params_blank)
{
    /* paths: strip trailing slashes (but keep "/") */
    size_t n = strlen(def->dir);
    while (n > 1 && def->dir[n - 1] == '/') n--;
    o->dir = rcb_malloc(n + 1);
    if (!o->dir) RC__NOMEM();
    memcpy(o->dir, def->dir, n);
    o->dir[n] = '\0';
    const char *sep = (n == 1 && o->dir[0] == '/') ? "" : "/";
    {
        char *base = rco_join(o->dir, sep);
        if (!base) RC__NOMEM();
        o->hist_path = rco_join(base, o->binary ? "history.bin" : "history.csv.gz");
        o->json_path = rco_join(base, "run.json");
        o->json_tmp = rco_join(base, "run.json.tmp");
        o->lock_path = rco_join(base, "run.lock");
        rcb_free(base);
    }
    if (!o->hist_path || !o->json_path || !o->json_tmp || !o->lock_path) RC__NOMEM();
    if (def->scenario && !(o->scenario = rcb_strdup(def->scenario))) RC__NOMEM();
    if (def->params_json && !params_blank && !(o->params = rcb_strdup(def->params_json))) RC__NOMEM();
    return RC_OK;
}

/* The history's columns: fixed, named bodies, named contacts, named
 * joints' forces, the joints' work. */
static rc_status output_columns(struct rc_output *o, rc_world *w)
{
    /* columns: the named bodies' (a pile's grains have no name) */
    int nb = rc_body_count(w), nnamed = 0;
    unsigned gen;
    for (int id = 0; id < nb; id++) {
        const char *name = rcm_body_column(w, id, &gen);   /* after a restore: as before it (model/remove.c) */
        nnamed += name && name[0];
    }
    if (nnamed > 0) {
        o->body_ids = rcb_malloc((size_t)nnamed * sizeof(int));
        o->body_nq = rcb_malloc((size_t)nnamed * sizeof(int));
        o->body_nv = rcb_malloc((size_t)nnamed * sizeof(int));
        o->body_gen = rcb_malloc((size_t)nnamed * sizeof(unsigned));
        if (!o->body_ids || !o->body_nq || !o->body_nv || !o->body_gen) RC__NOMEM();
    }
    int nstate_cols = 0;
    for (int id = 0; id < nb; id++) {
        const char *name = rcm_body_column(w, id, &gen);
        if (!name || !name[0]) continue;
        int nq = w->bodies[id].nq, nv = w->bodies[id].nv;   /* (a removed body's slot keeps them) */
        if (nq < 0 || nq > 7 || nv < 0 || nv > 6) nq = nv = 0;   /* large linear bodies: no columns */
        o->body_ids[o->nbodies] = id;
        o->body_gen[o->nbodies] = gen;
        o->body_nq[o->nbodies] = nq;
        o->body_nv[o->nbodies] = nv;
        o->nbodies++;
        nstate_cols += nq + nv;
    }
    o->ncontacts = rc_named_contact_count(w);
    if (o->ncontacts < 0) o->ncontacts = 0;
    int nj = rc_joint_count(w), jcols = 0;
    if (nj > 0) {
        o->joint_ids = rcb_malloc((size_t)nj * sizeof(int));
        o->joint_rows = rcb_malloc((size_t)nj * sizeof(int));
        if (!o->joint_ids || !o->joint_rows) RC__NOMEM();
        for (int id = 0; id < nj; id++) {
            rc_joint_info ji;
            if (!rc_joint_name(w, id) || rc_joint_get(w, id, &ji) != RC_OK) continue;
            o->joint_ids[o->njoints] = id;
            o->joint_rows[o->njoints] = ji.rows;
            o->njoints++;
            jcols += ji.rows;
        }
    }
    o->joint_work = 1;
    for (int id = 0; id < nj; id++) o->motor_work |= w->joints[id].motor_declared;   /* W_motor, last */
    o->newton = w->sim.scheme == RC_SCHEME_GEN_ALPHA;   /* the Newton figures of every step, last */
    o->tangential_work = w->nfem > 0 || w->def.dim == 3;   /* WT_max_pos, WT_min_neg, dissipation */
    if (rco_c3_open(o, w) != RC_OK) RC__NOMEM();   /* a dim = 3 world's contacts (output_c3.c) */
    int ncols = RC_OUT_NFIXED + nstate_cols + 5 * o->ncontacts + o->nc3cols + jcols + RC_OUT_NAUDIT + o->motor_work + 3 * o->tangential_work + 2 * o->newton;
    o->cols = rcb_malloc((size_t)ncols * sizeof(char *));
    if (!o->cols) RC__NOMEM();
    for (int i = 0; i < RC_OUT_NFIXED; i++) {
        if (!(o->cols[o->ncols] = rcb_strdup(rc__fixed_cols[i]))) RC__NOMEM();
        o->ncols++;
    }
    for (int b = 0; b < o->nbodies; b++) {
        unsigned gen;
        const char *name = rcm_body_column(w, o->body_ids[b], &gen);
        /* x, y, theta for rigid bodies (also a removed one); q1..qn, v1..vn for linear ones, n = 3 included */
        int rigid = !rcm_body_lagrangian(&w->bodies[o->body_ids[b]]);
        for (int i = 0; i < o->body_nq[b] + o->body_nv[b]; i++) {
            char suffix[16];
            int isq = i < o->body_nq[b];
            int k = isq ? i : i - o->body_nq[b];
            if (w->bodies[o->body_ids[b]].kind == RC_BODY_RIGID3D)
                snprintf(suffix, sizeof suffix, ".%s", isq ? rc__rigid3_q[k] : rc__rigid3_v[k]);
            else if (rigid) snprintf(suffix, sizeof suffix, ".%s", isq ? rc__rigid_q[k] : rc__rigid_v[k]);
            else snprintf(suffix, sizeof suffix, ".%s%d", isq ? "q" : "v", k + 1);
            if (!(o->cols[o->ncols] = rco_join(name, suffix))) RC__NOMEM();
            o->ncols++;
        }
    }
    for (int c = 0; c < o->ncontacts; c++) {
        const char *name = rc_named_contact_name(w, c);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "contact%d", c + 1); name = fallback; }
        for (int i = 0; i < 5; i++) {
            char suffix[8];
            snprintf(suffix, sizeof suffix, ".%s", rc__contact_cols[i]);
            if (!(o->cols[o->ncols] = rco_join(name, suffix))) RC__NOMEM();
            o->ncols++;
        }
    }
    if (rco_c3_names(o, w) != RC_OK) RC__NOMEM();
    for (int k = 0; k < o->njoints; k++)
        for (int r = 0; r < o->joint_rows[k]; r++) {
            char suffix[16];
            snprintf(suffix, sizeof suffix, ".f%d", r + 1);
            if (!(o->cols[o->ncols] = rco_join(rc_joint_name(w, o->joint_ids[k]), suffix))) RC__NOMEM();
            o->ncols++;
        }
    static const char *const audit[RC_OUT_NAUDIT] = { "W_J", "W_proj", "W_theta", "W_damp", "E_spring", "E_elastic" };
    for (int i = 0; i < RC_OUT_NAUDIT + o->motor_work; i++) {
        if (!(o->cols[o->ncols] = rcb_strdup(i < RC_OUT_NAUDIT ? audit[i] : "W_motor"))) RC__NOMEM();
        o->ncols++;
    }
    for (int i = 0; i < 3 * o->tangential_work; i++) {
        if (!(o->cols[o->ncols] = rcb_strdup(rco_work_cols[i]))) RC__NOMEM();
        o->ncols++;
    }
    for (int i = 0; i < 2 * o->newton; i++) {
        if (!(o->cols[o->ncols] = rcb_strdup(i ? "newton_residual" : "newton_iterations"))) RC__NOMEM();
        o->ncols++;
    }
    return RC_OK;
}

rc_status rc_output_open(rc_world *w, const rc_output_def *def)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_output_open: world is NULL");
    if (!def) return rc_set_error(RC_ERR_ARG, "rc_output_open: def is NULL");
    if (!def->dir || !def->dir[0])
        return rc_set_error(RC_ERR_ARG, "rc_output_open: dir must be a non-empty path");
    if (def->every < 1)
        return rc_set_error(RC_ERR_ARG, "rc_output_open: every must be >= 1 (got %d)", def->every);
    if (def->format != RC_HISTORY_CSV && def->format != RC_HISTORY_BINARY)
        return rc_set_error(RC_ERR_ARG, "rc_output_open: format must be RC_HISTORY_CSV or RC_HISTORY_BINARY "
                            "(got %d)", (int)def->format);
    int params_blank = 0;
    if (def->params_json) {
        int c = rc__check_params(def->params_json);
        if (c < 0)
            return rc_set_error(RC_ERR_ARG, "rc_output_open: params_json must be a JSON object");
        params_blank = c == 1;
    }
    if (w->out)
        return rc_set_error(RC_ERR_STATE, "rc_output_open: the output is already open (%s)",
                            w->out->dir);

    struct rc_output *o = rcb_malloc(sizeof *o);
    if (!o) return rc_set_error(RC_ERR_NOMEM, "rc_output_open: out of memory");
    memset(o, 0, sizeof *o);
    o->every = def->every;
    o->binary = def->format == RC_HISTORY_BINARY;
    o->io_status = RC_OK;
    o->fd = -1;
    o->lock_fd = -1;
    o->T = NAN;

    rc_status s = output_paths(o, def, params_blank);   /* on failure o is freed */
    if (s != RC_OK) return s;
    s = output_columns(o, w);
    if (s != RC_OK) return s;

    s = rc__check_columns(o, w);
    if (s != RC_OK) { rc__output_destroy(o); return s; }

    /* row buffer, also used for the header */
    size_t hlen = 2;
    for (int i = 0; i < o->ncols; i++) hlen += rco_csv_field(NULL, o->cols[i]) + 1;
    o->cap = (size_t)o->ncols * RC_OUT_NUM_MAX + 16;
    if (o->cap < hlen) o->cap = hlen;
    o->buf = rcb_malloc(o->cap);
    o->row = rcb_malloc((size_t)o->ncols * sizeof(double));
    if (!o->buf || !o->row) RC__NOMEM();

    /* files */
    s = rco_mkdirs(o->dir);
    if (s != RC_OK) { rc__output_destroy(o); return s; }
    s = rco_lock(o, w);
    if (s != RC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "rc_output_open: %s", rc_last_error());
        rc__output_destroy(o);
        return rc_set_error(s, "%s", msg);
    }
    {   /* an earlier run's history in the other format would be read as this run's */
        char *other = rco_join(o->dir, o->binary ? "/history.csv.gz" : "/history.bin");
        if (!other) RC__NOMEM();
        (void)unlink(other);
        rcb_free(other);
    }

    char *p = o->buf;
    if (o->binary) {
        s = rco_bin_open(o);   /* the header (output_bin.c) */
        if (s != RC_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", rc_last_error());
            rc__output_destroy(o);   /* (the message names o->hist_path) */
            return rc_set_error(s, "%s", msg);
        }
    } else {
        errno = 0;
        o->gz = gzopen(o->hist_path, "wb1");
        if (!o->gz) {
            int e = errno;
            s = rc_set_error(RC_ERR_IO, "rc_output_open: cannot open %s: %s", o->hist_path,
                             e ? strerror(e) : "gzopen failed");
            rc__output_destroy(o);   /* after the message: it names o->hist_path */
            return s;
        }
        gzbuffer(o->gz, 1u << 16);
        o->fd = open(o->hist_path, O_WRONLY | O_CLOEXEC);   /* to end the stream after a write error */
        for (int i = 0; i < o->ncols; i++) {
            if (i) *p++ = ',';
            p += rco_csv_field(p, o->cols[i]);
        }
        *p++ = '\n';
    }

    o->cpu0 = clock();
    clock_gettime(CLOCK_MONOTONIC, &o->wall0);
    {
        double ek = NAN, ep = NAN;
        if (rc_world_energy(w, &ek, &ep) != RC_OK) { ek = NAN; ep = NAN; }
        o->E0 = ek + ep;
    }

    w->out = o;
    rcm_world_attach_part(w, RC_PART_OUTPUT, &output_part);
    s = o->binary ? RC_OK : rco_gz_write(o, o->buf, (size_t)(p - o->buf));
    if (s == RC_OK) s = rco_write_row(w);
    if (s == RC_OK) s = o->binary ? rco_bin_flush(o) : rco_gz_flush(o);
    int json_failed = 0;
    if (s == RC_OK) json_failed = (s = rco_write_json(w, "running", 0, NULL, 0.0, 0.0)) != RC_OK;
    if (s != RC_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "rc_output_open: %s", rc_last_error());
        if (!json_failed)   /* the history could not be written: run.json says so */
            (void)rco_write_json(w, "error", 0, msg + strlen("rc_output_open: "), 0.0, 0.0);
        w->out = NULL;
        rc__output_destroy(o);
        return rc_set_error(s, "%s", msg);
    }
    return RC_OK;
}

#define RC__STATUSES "\"complete\", \"stopped\", \"error\", \"interrupted\", \"exited\" or \"aborted\""

static rc_status rc__output_end(rc_world *w, const char *fname, const char *status,
                                const char *message)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "%s: world is NULL", fname);
    if (!status)
        return rc_set_error(RC_ERR_ARG, "%s: status is NULL (expected " RC__STATUSES ")", fname);
    if (strcmp(status, "complete") && strcmp(status, "error") && strcmp(status, "interrupted")
        && strcmp(status, "stopped") && strcmp(status, "exited") && strcmp(status, "aborted"))
        return rc_set_error(RC_ERR_ARG, "%s: unknown status \"%s\" (expected " RC__STATUSES ")",
                            fname, status);
    struct rc_output *o = w->out;
    if (!o) return RC_OK;

    rc_status result = RC_OK;
    char errmsg[1024] = "";
    int complete = strcmp(status, "complete") == 0;
    const char *final_status = status;
    const char *final_message = message;
    char downgraded[1100];

    /* "complete" before the end time of the run: the run was cut short */
    double t = rc_world_time(w);
    rc_sim_def sim;
    if (complete && rcb_finite(o->T) && rc_world_get_sim_def(w, &sim) == RC_OK
        && t < o->T - 0.75 * sim.h) {
        final_status = "aborted";
        complete = 0;
        if (!message) {
            snprintf(downgraded, sizeof downgraded, "the output was closed at t = %.15g, before "
                     "the end of the run (T = %.15g)", t, o->T);
            final_message = downgraded;
        }
    }

    /* everything so far into the file: the point a failed stream is ended at */
    if (o->io_status == RC_OK) (void)(o->binary ? rco_bin_flush(o) : rco_gz_flush(o));

    /* A row that could not be written makes the history incomplete. */
    if (complete && o->io_status != RC_OK) {
        final_status = "error";
        complete = 0;
        snprintf(downgraded, sizeof downgraded, "%s", o->io_msg);
        final_message = downgraded;
        result = o->io_status;
        snprintf(errmsg, sizeof errmsg, "%s: %s", fname, o->io_msg);
    }

    /* "# incomplete: STATUS: MESSAGE" on one line (UTF-8, no control characters) */
    size_t nline = 0;
    if (!complete) {
        nline = (size_t)snprintf(o->buf, o->cap, "# incomplete: %s", final_status);
        if (nline >= o->cap) nline = o->cap - 1;
        if (final_message && nline + 4 < o->cap) {
            o->buf[nline++] = ':';
            o->buf[nline++] = ' ';
            rco_text_escape(o->buf + nline, o->cap - nline - 1, final_message);
            nline += strlen(o->buf + nline);
        }
        o->buf[nline++] = '\n';
        if (!o->binary && rco_gz_write(o, o->buf, nline) != RC_OK && result == RC_OK) {
            result = RC_ERR_IO;
            snprintf(errmsg, sizeof errmsg, "%s: %s", fname, rc_last_error());
        }
    }

    errno = 0;
    const int ebin = o->binary ? rco_bin_end(o, complete, o->buf, nline) : 0;   /* output_bin.c */
    int zr = o->binary ? (ebin ? Z_ERRNO : Z_OK) : gzclose(o->gz);
    o->gz = NULL;
    if (zr != Z_OK) {
        const char *why = ebin ? strerror(ebin) : zr == Z_ERRNO ? strerror(errno) : zr == Z_BUF_ERROR
                          ? "incomplete write" : "gzclose failed";
        if (result == RC_OK) {
            result = RC_ERR_IO;
            snprintf(errmsg, sizeof errmsg, "%s: cannot write %s: %s", fname, o->hist_path, why);
        }
        if (o->io_status == RC_OK) {
            o->io_status = RC_ERR_IO;
            snprintf(o->io_msg, sizeof o->io_msg, "cannot write %s: %s", o->hist_path, why);
        }
        if (complete) {
            complete = 0;
            final_status = "error";
            snprintf(downgraded, sizeof downgraded, "cannot write %s: %s", o->hist_path, why);
            final_message = downgraded;
            nline = (size_t)snprintf(o->buf, o->cap, "# incomplete: error: ");
            if (nline >= o->cap) nline = o->cap - 1;
            rco_text_escape(o->buf + nline, o->cap - nline - 1, downgraded);
            nline += strlen(o->buf + nline);
            o->buf[nline++] = '\n';
        }
    }
    /* a write failed: end the stream after the last whole rows that reached the file */
    if (o->io_status != RC_OK) {
        if (!o->binary) rco_gz_repair(o, o->buf, nline);   /* (output_bin.c has cut the binary file) */
        o->rows = o->good_rows;
        if (result == RC_OK) {
            result = o->io_status;
            snprintf(errmsg, sizeof errmsg, "%s: %s", fname, o->io_msg);
        }
    }

    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double wall_s = (double)(now.tv_sec - o->wall0.tv_sec)
                  + 1e-9 * (double)(now.tv_nsec - o->wall0.tv_nsec);
    double cpu_s = (double)(clock() - o->cpu0) / (double)CLOCKS_PER_SEC;
    if (rco_write_json(w, final_status, complete, final_message, cpu_s, wall_s) != RC_OK
        && result == RC_OK) {
        result = RC_ERR_IO;
        snprintf(errmsg, sizeof errmsg, "%s: %s", fname, rc_last_error());
    }

    w->out = NULL;
    rc__output_destroy(o);   /* and the folder's lock */
    if (result != RC_OK) return rc_set_error(result, "%s", errmsg);
    return RC_OK;
}

rc_status rc_output_close(rc_world *w, const char *status, const char *message)
{
    return rc__output_end(w, "rc_output_close", status, message);
}

rc_status rc_output_close_exited(rc_world *w, int code, const char *message)
{
    if (w && w->out) {
        w->out->exit_code = code;
        w->out->has_exit_code = 1;
    }
    return rc__output_end(w, "rc_output_close_exited", "exited", message);
}

rc_status rc_output_set_end_time(rc_world *w, double T)
{
    if (!w) return rc_set_error(RC_ERR_ARG, "rc_output_set_end_time: world is NULL");
    if (!rcb_finite(T))
        return rc_set_error(RC_ERR_ARG, "rc_output_set_end_time: T must be a finite number (got %g)", T);
    if (!w->out) return rc_set_error(RC_ERR_STATE, "rc_output_set_end_time: no output is open");
    w->out->T = T;
    return RC_OK;
}

static void rc_output_free(rc_world *w)
{
    if (!w || !w->out) return;
    if (rc_output_close(w, "error", "world destroyed before the output was closed") != RC_OK
        && w->out) {
        rc__output_destroy(w->out);
        w->out = NULL;
    }
}
