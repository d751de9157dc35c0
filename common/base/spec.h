/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FTT_SPEC_H
#define FTT_SPEC_H
/* SPEC(.field = value, ...): a braced initializer written as a call, one entry of a table
 * of structs with its fields named. The shared entries of option tables (opt.h) and of row
 * tables (row.h) are macros of it, which clang-format keeps on a few lines (a macro whose
 * body is a brace it lays out as a block). It has a header of its own so that a module
 * opt.c uses (out.h) can write such an entry without including opt.h: a circle of
 * includes, which make check refuses. */
/* clang-format off */
#define SPEC(...) {__VA_ARGS__}
/* clang-format on */
#endif
