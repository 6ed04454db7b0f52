/* checkpoint.h -- internal to checkpoint.c and checkpoint_model.c: the
 * checkpoint file's encoding (little-endian integers, doubles as their bits,
 * a running FNV-1a hash of what is written) and the model's fingerprint. */
#ifndef RC_CHECKPOINT_H
#define RC_CHECKPOINT_H

#include "io/io.h"

/* ---------------------------------------------------------------- encoding */

/* A growing byte buffer and a running hash (FNV-1a, 64 bits) of what is put
 * in it; hash_only: the hash alone. */
typedef struct ck_out {
    unsigned char *p;
    size_t n, cap;
    int nomem;
    int hash_only;
    uint64_t h;
} ck_out;

static inline void out_init(ck_out *o, int hash_only)
{
    memset(o, 0, sizeof *o);
    o->hash_only = hash_only;
    o->h = 0xcbf29ce484222325ull;
}

static inline void put(ck_out *o, const void *src, size_t n)
{
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++) { o->h ^= s[i]; o->h *= 0x100000001b3ull; }
    if (o->hash_only || o->nomem) return;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->n + n) cap *= 2;
        unsigned char *p = rcb_realloc(o->p, cap);
        if (!p) { o->nomem = 1; return; }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
}

static inline void put_u64(ck_out *o, uint64_t x)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(x >> (8 * i));
    put(o, b, 8);
}
static inline void put_u32(ck_out *o, uint32_t x)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++) b[i] = (unsigned char)(x >> (8 * i));
    put(o, b, 4);
}
static inline void put_i32(ck_out *o, int x) { put_u32(o, (uint32_t)x); }
static inline void put_i64(ck_out *o, long x) { put_u64(o, (uint64_t)(int64_t)x); }
static inline void put_f64(ck_out *o, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    put_u64(o, u);
}
static inline void put_f64s(ck_out *o, const double *x, int n) { for (int i = 0; i < n; i++) put_f64(o, x[i]); }
static inline void put_str(ck_out *o, const char *s)   /* NULL and "" differ */
{
    if (!s) { put_u32(o, 0xffffffffu); return; }
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

/* Reading: a cursor that stops (short = 1) at the end of its bytes. */
typedef struct ck_in {
    const unsigned char *p;
    size_t n, off;
    int short_;
} ck_in;

static inline const unsigned char *take(ck_in *r, size_t n)
{
    if (r->short_ || r->n - r->off < n) { r->short_ = 1; return NULL; }
    const unsigned char *p = r->p + r->off;
    r->off += n;
    return p;
}
static inline uint64_t get_u64(ck_in *r)
{
    const unsigned char *b = take(r, 8);
    uint64_t x = 0;
    if (b) for (int i = 7; i >= 0; i--) x = (x << 8) | b[i];
    return x;
}
static inline uint32_t get_u32(ck_in *r)
{
    const unsigned char *b = take(r, 4);
    uint32_t x = 0;
    if (b) for (int i = 3; i >= 0; i--) x = (x << 8) | b[i];
    return x;
}
static inline int get_i32(ck_in *r) { return (int)get_u32(r); }
static inline long get_i64(ck_in *r) { return (long)(int64_t)get_u64(r); }
static inline double get_f64(ck_in *r)
{
    uint64_t u = get_u64(r);
    double x;
    memcpy(&x, &u, 8);
    return x;
}
static inline void get_f64s(ck_in *r, double *x, int n) { for (int i = 0; i < n; i++) x[i] = get_f64(r); }

/* Sections of the model, hashed apart so that a refusal can say which differ. */
enum { CK_WORLD, CK_BODIES, CK_SHAPES, CK_LAWS, CK_RULES, CK_JOINTS, CK_SPRINGS, CK_LINEARS, CK_GAPS,
       CK_SIMULATION, CK_NSECTIONS };
extern const char *const rc_ck_section_name[];

typedef struct ck_section { uint64_t hash; uint32_t count; } ck_section;

/* The hash and item count of each section of the model, and the hash of
 * them all (what a checkpoint must match). */
void rc_ck_fingerprint(const rc_world *w, ck_section sec[CK_NSECTIONS], uint64_t *all);

/* checkpoint_life.c: the removals (life records, bodies and shapes added in
 * removed slots, the removed energy) at the end of the state. */
typedef struct ck_lives {
    double E_removed;
    int nremoved;
    struct ck_life *rec[4];     /* body, shape, joint, spring records, by slot */
    int n[4];
} ck_lives;
void rc_ck_put_lives(ck_out *o, const rc_world *w);
rc_status rc_ck_check_lives(const rc_world *w);
/* Reads the block and checks it against this world (a refusal names the slot
 * whose removals differ); rc_ck_apply_lives makes the world's slots so. */
rc_status rc_ck_parse_lives(const char *path, const rc_world *w, ck_in *r, ck_lives *L);
rc_status rc_ck_apply_lives(rc_world *w, const ck_lives *L);
void rc_ck_lives_free(ck_lives *L);

/* checkpoint_c3.c: a dim = 3 world's shapes and joints in the fingerprint
 * (counted in the shapes' and joints' sections), and its contacts' and joints'
 * state at the end of the state; parse checks the block against this world
 * and records where its parts are, reserve makes room, commit fills it. */
typedef struct ck_c3 {
    int has, next_id, nprev, ndprev;
    size_t prev_at, dprev_at, joints_at;
} ck_c3;
int rc_ck_count_shapes3(const rc_world *w);
int rc_ck_count_joints3(const rc_world *w);
void rc_ck_hash_shapes3(ck_out *o, const rc_world *w);
void rc_ck_hash_joints3(ck_out *o, const rc_world *w);
void rc_ck_put_c3(ck_out *o, const rc_world *w);
rc_status rc_ck_parse_c3(const char *path, const rc_world *w, ck_in *r, ck_c3 *s);
rc_status rc_ck_reserve_c3(rc_world *w, const ck_c3 *s);
void rc_ck_commit_c3(rc_world *w, const unsigned char *raw, const ck_c3 *s);

#endif /* RC_CHECKPOINT_H */
