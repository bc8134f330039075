/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record-fields.h - inside the reader (record-read.c): one record's fields
 * checked and taken (record-fields.c).
 *
 *   record_parse(r, o)       r->file and r->line set: 0, or -1 after
 *                            "prog: records: FILE:LINE: what" on stderr
 *   record_fail(file, line, fmt, ...)   that message; returns -1
 *   record_build_check(b, file, line)   a record's "build" object (also
 *                            for writers: bench-vm-collect --build)
 */
#ifndef RECORD_FIELDS_H
#define RECORD_FIELDS_H

#include "record-read.h"
#include "util.h"

int record_parse(struct record *r, struct json_object *o);
int record_build_check(struct json_object *b, const char *file, unsigned int line);
__printf(3, 4) int record_fail(const char *file, unsigned int line, const char *fmt, ...);

#endif /* RECORD_FIELDS_H */
