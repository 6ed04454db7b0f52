/*
 * io/output_impl.h -- what the history output's files share (not public, not
 * for other files): output.c (columns, open and close), output_row.c (a row's
 * values, as text or binary), output_bin.c (the binary history), files.c
 * (paths, formatting, the gzip stream, the folder lock), run_json.c.
 */
#ifndef RC_OUTPUT_IMPL_H
#define RC_OUTPUT_IMPL_H

#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define RC_OUT_FLUSH_ROWS 4096
#define RC_OUT_NUM_MAX 32      /* room for one "%.15g" number and a separator */
#define RC_OUT_NFIXED 7        /* t, E, E_kin, E_pot, W_ext, W_N, W_T */
#define RC_OUT_NAUDIT 6        /* last: W_J, W_proj, W_theta, W_damp (totals), E_spring, E_elastic */
#define RC_OUT_JSON_RESERVE 8192   /* blanks after the "running" run.json */

struct rc_output {
    char *dir;
    char *hist_path;        /* DIR/history.csv.gz, or DIR/history.bin (binary) */
    char *json_path;        /* DIR/run.json       */
    char *json_tmp;         /* DIR/run.json.tmp   */
    char *scenario;         /* or NULL */
    char *params;           /* JSON object text, or NULL */
    gzFile gz;              /* CSV */
    int binary;             /* 1: DIR/history.bin through fd (output_bin.c) */
    int every;

    /* columns */
    int nbodies;            /* named bodies written */
    int *body_ids;
    int *body_nq, *body_nv;
    unsigned *body_gen;     /* the slot's generation at the open: a body removed
                               (or a newer one in its slot) writes NaN */
    int ncontacts;          /* named contacts written */
    struct rco_c3 *c3;      /* a dim = 3 world's contact columns (output_c3.c), or NULL */
    int nc3cols;
    int *joint_ids, njoints, *joint_rows;   /* named joints: NAME.f1..fm */
    int joint_work;         /* 1: the audit's columns last (W_J, W_proj, W_theta, W_damp, E_spring, E_elastic) */
    int motor_work;         /* 1: then W_motor (a joint had a motor when the output opened) */
    int newton;             /* 1: then newton_iterations, newton_residual (scheme gen-alpha at open) */
    int tangential_work;    /* 1: then WT_max_pos, WT_min_neg, dissipation (a finite-element body at open) */
    int ncols;
    char **cols;

    /* row buffer */
    double *row;            /* the row's ncols values (output_row.c) */
    char *buf;              /* its text (CSV), the header, the "# incomplete" line */
    size_t cap;
    unsigned char *bbuf;    /* binary: rows not yet written to fd */
    size_t bcap, blen;
    off_t data_off;         /* binary: where the rows start (the header's size) */

    long rows;              /* rows written (the first one included) */
    long rows_since_flush;
    long last_step;         /* step of the last row written */

    double E0;
    clock_t cpu0;
    struct timespec wall0;

    rc_status io_status;    /* first write error (sticky) */
    char io_msg[512];

    /* the end of the last sync flush: where a failed stream is ended */
    int fd;                 /* the history opened a second time (CSV) or the binary history, or -1 */
    uLong crc, len;         /* CRC-32 and length (mod 2^32) of the data given to zlib */
    off_t good_off;
    uLong good_crc, good_len;
    long good_rows;

    double T;               /* end time of the run (rc_output_set_end_time), or NaN */
    int exit_code, has_exit_code;

    char *lock_path;        /* DIR/run.lock */
    int lock_fd;            /* -1 when not held */
};

char *rco_join(const char *a, const char *b);
void rco_text_escape(char *dst, size_t room, const char *s);
size_t rco_fmt_num(char *p, size_t room, double x);
/* output_c3.c: a dim = 3 world's 3D contact columns (after the named contacts) */
rc_status rco_c3_open(struct rc_output *o, rc_world *w);
rc_status rco_c3_names(struct rc_output *o, rc_world *w);
double *rco_c3_row(struct rc_output *o, rc_world *w, double *x);
void rco_c3_free(struct rc_output *o);
/* output_work.c: the columns WT_max_pos, WT_min_neg, dissipation of a world
 * with a finite-element body, and their values at x (returns the new end) */
extern const char *const rco_work_cols[3];
double *rco_work_row(rc_world *w, double *x);
/* snprintf(p, room, "%.15g", x), faster (fmt_num.c) */
size_t rco_fmt_g15(char *p, size_t room, double x);
rc_status rco_mkdirs(const char *dir);
rc_status rco_gz_write(struct rc_output *o, const char *s, size_t n);
rc_status rco_gz_flush(struct rc_output *o);
int rco_pwrite_all(int fd, const void *data, size_t n, off_t off);
int rco_gz_repair(struct rc_output *o, const char *line, size_t n);
size_t rco_csv_field(char *dst, const char *s);
rc_status rco_lock(struct rc_output *o, rc_world *w);
void rco_unlock(struct rc_output *o);
/* output_row.c: the row of the current state (both formats), after the header */
rc_status rco_write_row(rc_world *w);
/* output_bin.c: DIR/history.bin -- open (the header), rows (buffered, written
 * when RC_OUT_BIN_BUF bytes are waiting), flush, end (the header's end record,
 * the "# incomplete" line after the rows) */
#define RC_OUT_BIN_BUF 65536
rc_status rco_bin_open(struct rc_output *o);
rc_status rco_bin_row(struct rc_output *o);
rc_status rco_bin_flush(struct rc_output *o);
int rco_bin_end(struct rc_output *o, int complete, const char *line, size_t n);
void rco_put_u32(unsigned char *p, uint32_t v);
void rco_put_f64(unsigned char *p, double x);
rc_status rco_write_json(rc_world *w, const char *status, int complete,
                         const char *message, double cpu_s, double wall_s);

#endif /* RC_OUTPUT_IMPL_H */
