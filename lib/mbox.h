/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mbox.h - read mails from an mbox file as git am reads them.
 *
 * API, in call order:
 *   mbox_read(path, &box, err, errlen)  split and parse a whole file; 0,
 *                                       or -1 with "path:line: why" in err
 *   msg->err                            NULL, or why git cannot read this
 *                                       one mail (the others are fine)
 *   mbox_header(msg, "Message-Id")      a header's value (unfolded), or NULL
 *   mbox_header_at(msg, "Subject")      the first such header: its name,
 *                                       value, line and the number of lines
 *                                       it is folded over; or NULL
 *   msg->author, email, subject, date   what git mailinfo -k reads ("" if
 *                                       it finds none)
 *   msg->message, msg->patch            the decoded message and the patch
 *                                       it carries, split as git am does
 *   mbox_has_diff(msg)                  does the patch part hold a diff?
 *   mbox_bare_subject(subject)          "Re: [PATCH 3/7] foo" -> "foo",
 *                                       as git mailinfo without -k
 *                                       (allocated; NULL: no memory)
 *   mbox_decode_words(text, &out, &why) RFC 2047 words of text decoded
 *                                       (Q and B, any charset iconv
 *                                       knows) into UTF-8, the blanks
 *                                       between two words dropped: what
 *                                       mailinfo does for headers, for a
 *                                       text it leaves alone (a trailer's
 *                                       name in a body); 0 and out, or -1
 *                                       and why (both allocated; why NULL:
 *                                       no memory).  The result is not
 *                                       checked: text_bad() (text.h)
 *   mbox_free(&box)
 *   mbox_dir_plain(dir, err, errlen)    every entry under dir (patches/) is
 *                                       a regular file or a directory: 0,
 *                                       or -1 with the first that is not
 *                                       named in err
 *
 * Splitting is 'git mailsplit' itself: a mail starts at a "From " line
 * that ends in a date ("From <id> Mon Sep 17 00:00:00 2001"), whether or
 * not a blank line comes before it; CRLF line ends become LF.  Every mail
 * is parsed by 'git mailinfo -k' (RFC 2047 words, quoted-printable,
 * base64 and MIME parts decoded, in-body From:/Subject: honoured).  The
 * raw header block, which mailinfo does not print, is read by the rules
 * of mailinfo's own header reader: a header is a name of printable
 * characters and a colon, with or without a space after it
 * ("X-Spam-Flag:NO"); a line starting with a blank continues the one
 * before; the block ends at an empty line or at the first line that is
 * not a header, which then starts the body.
 */
#ifndef MBOX_H
#define MBOX_H

#include <stddef.h>

struct mbox_header {
	char *name;
	char *value;			/* unfolded */
	unsigned int line;		/* the file's line where it starts */
	unsigned int lines;		/* 1, or how many it is folded over */
};

struct mbox_msg {
	unsigned int line;		/* line of its "From " separator */
	char *err;			/* NULL, or why git cannot read it */
	struct mbox_header *hdr;
	size_t nhdr;
	char *body;			/* the body as the file has it */
	unsigned int body_line;		/* line where the body starts */
	/* from git mailinfo -k; never NULL when err is NULL */
	char *author, *email, *subject, *date;
	char *message;			/* the decoded message */
	char *patch;			/* from the "---" or "diff" line on */
};

struct mbox {
	const char *path;
	struct mbox_msg *msg;
	size_t nmsg;
};

int mbox_read(const char *path, struct mbox *box, char *err, size_t errlen);
const char *mbox_header(const struct mbox_msg *msg, const char *name);
const struct mbox_header *mbox_header_at(const struct mbox_msg *msg,
					 const char *name);
int mbox_has_diff(const struct mbox_msg *msg);
char *mbox_bare_subject(const char *subject);
int mbox_decode_words(const char *text, char **out, char **why);
void mbox_free(struct mbox *box);
int mbox_dir_plain(const char *dir, char *err, size_t errlen);

#endif /* MBOX_H */
