/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reviewer.h - what the parts of ci-reproduce (the reviewer's tool: make
 * reproduce, make reply) share: the report they read (report-json.c) and
 * the reply's entry point, which reproduce.c's main dispatches to.
 *
 *   report_load(path)      report-json.c: ci-report --json's object of
 *                          commits, or die
 *   read_json(path, what)  report-json.c: a JSON file, or die naming WHAT
 *   str_of(o, key)         report-json.c: a string member, or NULL
 *   cmd_reply(...)         reply.c: the reply to the cover letter
 */
#ifndef CI_REVIEWER_H
#define CI_REVIEWER_H

#include <json-c/json.h>

struct json_object *read_json(const char *path, const char *what);
struct json_object *report_load(const char *path);
const char *str_of(struct json_object *o, const char *key);
int cmd_reply(const char *report, const char *cover, const char *from, const char *toolkit,
	      const char *where, const char *more_cc);

#endif /* CI_REVIEWER_H */
