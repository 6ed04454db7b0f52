/*
 * ricochet_frames.h -- the frame file of a run (DIR/frames.rcf), read by the
 * browser viewer (`ricochet view DIR`, docs/viewing.md).
 *
 * A frame file holds the shapes once and then, every time rc_frames_write is
 * called (by `sim:run{ frames = N }` every N-th step), the time, every body's
 * state and the active contacts with their impulses. Format, version 1:
 *
 *   16 bytes, not compressed:  "RCFRAMES", uint32 version (1), uint32 flags (0)
 *   then one zlib stream (RFC 1950) of records, little-endian, each
 *       uint32 tag, uint32 n (payload bytes, a multiple of 4), payload
 *   'GEOM' (written before the first frame and again when bodies or shapes
 *          were added): uint32 nbody, uint32 nshape, float64 periodic x0, x1,
 *          per body: uint32 kind (1 rigid, 2 linear), uint32 name length L,
 *            L bytes of name padded with zeros to a multiple of 4,
 *            float64 mass, float64 inertia (0 for linear bodies);
 *          per shape: int32 body (-1: ground), uint32 type (rc_shape_type),
 *            uint32 m, m float64 values: disk ox oy r; polygon x0 y0 x1 y1 ...
 *            (body frame); point ox oy; half-plane px py nx ny; segment
 *            ax ay bx by r; circle_inside cx cy R (world frame for the ground)
 *   'FRAM' float64 t, float64 step, uint32 nbody, uint32 ncontact, then the
 *          float32 arrays x, y, theta, vx, vy, omega (nbody each; a linear
 *          body: its first three q and v or NaN), then int32 body_a[nc],
 *          int32 body_b[nc], float32 px, py, nx, ny, pN, pT [nc] (active
 *          contacts: point, normal (from A to B), impulses; the tangent is
 *          (ny, -nx))
 *   'END ' uint32 L, L bytes "STATUS" or "STATUS: MESSAGE" padded
 *
 * Every frame ends with a zlib sync flush, so the file of a run that was
 * killed is a readable prefix (no 'END ' record: the viewer says so). Unknown
 * tags are skipped by readers (their length is given). A frame allocates
 * nothing once its buffers have grown to the world's size.
 */
#ifndef RICOCHET_FRAMES_H
#define RICOCHET_FRAMES_H

#include "ricochet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RC_FRAMES_VERSION 1

typedef struct rc_frames_writer rc_frames_writer;

typedef struct rc_frames_def {
    const char *path;       /* the file (folders created if missing)          */
    int level;              /* zlib level 0..9 (default 6)                    */
    int contacts;           /* 1: write the active contacts (default), 0: not */
} rc_frames_def;

RC_API rc_frames_def rc_default_frames_def(void);
RC_API rc_status rc_frames_open(const rc_frames_def *def, rc_frames_writer **out);
/* Appends the world's current state as a frame (and the geometry first). */
RC_API rc_status rc_frames_write(rc_frames_writer *fw, const rc_world *w);
RC_API long rc_frames_count(const rc_frames_writer *fw);   /* frames written so far */
/* Writes the 'END ' record with the status ("complete", "error", ...) and an
 * optional message, ends the stream and frees the writer (NULL: nothing to
 * do). The writer is freed also when writing fails (RC_ERR_IO). */
RC_API rc_status rc_frames_close(rc_frames_writer *fw, const char *status, const char *message);

#ifdef __cplusplus
}
#endif
#endif /* RICOCHET_FRAMES_H */
