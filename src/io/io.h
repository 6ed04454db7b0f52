/*
 * io/io.h -- the history output and the VTK writer (not public). Includes
 * model (the writers read the world through the public API and its data).
 */
#ifndef RC_IO_H
#define RC_IO_H

#include "model/model.h"

/* output.c: the length of the well-formed UTF-8 sequence at s (1..4; 1 for
 * the NUL byte), 0 if s starts an ill-formed one (RFC 3629: no overlong
 * forms, surrogates or code points above U+10FFFF). */
size_t rco_utf8_seq(const char *s);

#endif /* RC_IO_H */
