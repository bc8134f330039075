/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mbox.h - read patch mails from an mbox file.
 *
 * API, in call order:
 *   mbox_read(path, &box, err, errlen)  parse a whole file; 0 or -1 with
 *                                       "path:line: why" in err
 *   mbox_header(msg, "Subject")         a header's value (unfolded), or NULL
 *   mbox_has_diff(msg)                  does the body carry a patch?
 *   mbox_free(&box)
 *
 * Accepts the mbox flavours git format-patch, b4 and public-inbox write:
 * messages start with a "From " line at the top of the file or after a
 * blank line.  Headers end at the first empty line.
 */
#ifndef MBOX_H
#define MBOX_H

#include <stddef.h>

struct mbox_header {
	char *name;
	char *value;
};

struct mbox_msg {
	unsigned int line;		/* line of its "From " separator */
	struct mbox_header *hdr;
	size_t nhdr;
	char *body;
	unsigned int body_line;		/* line where the body starts */
};

struct mbox {
	const char *path;
	struct mbox_msg *msg;
	size_t nmsg;
};

int mbox_read(const char *path, struct mbox *box, char *err, size_t errlen);
const char *mbox_header(const struct mbox_msg *msg, const char *name);
int mbox_has_diff(const struct mbox_msg *msg);
void mbox_free(struct mbox *box);

#endif /* MBOX_H */
