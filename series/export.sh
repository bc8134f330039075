#!/bin/sh
# export.sh: regenerate patches/ from the series commits.
#
#   VERSION=2 export.sh        subject prefix "PATCH v2" (v1: "PATCH");
#                              default: the version of the cover letter
#                              in patches/, so a plain export keeps it
#   PATCHES_OUT=<dir>          write there instead of patches/
#
# git format-patch writes one mbox per commit (zero commit ids, no
# signature: the output depends on the commits only).  Every mail gets a
# Message-Id of this posting, <x86-copy-series-v<N>-<k>-<tag>@<domain>>,
# a carried patch of another author too (a new posting is a new message:
# its original is the Link: trailer); all reply to the cover letter.
# <domain> is the sender's (FROM, or git's identity), as git format-patch
# and b4 take it; <tag> is 12 hex of the sha256 of the sender, the
# version, the base and every commit's message and tree, and the cover's
# text: two maintainers, two versions or two contents of one version
# never share an id (a shared one collides on lore), while an export
# again of the same posting (a dry run, then the real send) keeps its
# ids.
# Notes below a patch's '---' line live in no commit: they are kept from
# the old patches/ file with the same subject.  The cover letter keeps its
# text but for what the commits give: the numbering, the shortlog and
# diffstat (format-patch's own, so that they are never stale) and the
# base-commit trailer; the upstream entries of patches/series are kept as
# they are.  `make apply`
# of the export gives the same commits (tests/t0070-export.t).  Nothing of
# $DEST changes until the whole export is written next to it.
#
# Identity: the mails are the maintainer's, FROM='Name <you@example.org>'
# or else git config user.name and user.email (lib.sh: series_ident).
# Where the series carries the placeholder 'x86-copy-series
# <x86-copy-series@example.org>' in a From: or Signed-off-by: line, that
# identity takes its place; with neither FROM nor a git identity, the
# placeholder stays: it is the documented default, no one's address.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

PATCHES=${PATCHES:-$TOP/patches}
DEST=${PATCHES_OUT:-$PATCHES}
# what is read and what is written: files, no link (lib.sh: patches_plain)
patches_plain "$PATCHES" "$DEST"
[ -n "${VERSION:-}" ] || VERSION=$(sed -n 's/^Subject: \[PATCH v\([0-9][0-9]*\) 0\/[0-9].*/\1/p' \
	"$PATCHES/0000-cover-letter.mbox" 2>/dev/null | head -n 1)
VERSION=${VERSION:-1}
case "$VERSION" in
''|*[!0-9]*|0*) usage_die "VERSION must be a positive number (1, 2, ...), not '$VERSION'" ;;
esac
tool_built claims-lint
[ ! -e "$DEST" ] || [ -d "$DEST" ] ||
	usage_die "PATCHES_OUT='$DEST' is not a directory"
if [ "$VERSION" = 1 ]; then prefix=PATCH; else prefix="PATCH v$VERSION"; fi
ident=$(series_ident)
printf '%s\n' "$ident" | grep -Eqx '[^<>@]*<[^<>@ ]+@[^<>@ ]+>' ||
	usage_die "FROM='$ident' is not one 'Name <address>': FROM='Name <you@example.org>'"

base=$(base_commit)
head=$(kgit rev-parse -q --verify "$REF_NS/series") ||
	die "series: $REF_NS/series is not set: run 'make apply' first"
n=$(kgit rev-list --count "$base..$head")
[ "$n" -gt 0 ] || die "series: no commits between the base and $REF_NS/series"
[ -r "$PATCHES/0000-cover-letter.mbox" ] ||
	die "cover: $PATCHES/0000-cover-letter.mbox is missing: the export keeps its text"
[ -r "$PATCHES/series" ] || die "series: $PATCHES/series is missing"

domain=${ident##*@}
domain=${domain%>}
# the right of a Message-Id is a dot-atom: a domain name here
case $domain in
'' | [.-]* | *[.-] | *[!A-Za-z0-9.-]*) usage_die "FROM='$ident': '$domain' is not a domain name (letters, digits, dots, hyphens), which the mails' Message-Ids are of" ;;
esac
tag=$({
	printf '%s\n' "$ident" "$VERSION" "$base"
	kgit log --reverse --format='%T%n%B' "$base..$head"
	sed '1,/^$/d' "$PATCHES/0000-cover-letter.mbox"
} | sha256sum | cut -c1-12) && [ ${#tag} = 12 ] ||
	die "msgid: cannot read the commits or the cover letter to name this posting"
msgid() {
	printf '<x86-copy-series-v%s-%s-%s@%s>' "$VERSION" "$1" "$tag" "$domain"
}
cover_id=$(msgid 0)

# scratch and stage: owned (.owner), so that the next run removes what a
# killed one left (lib.sh: stage_make)
stage_make "${TMPDIR:-/tmp}" xcs-export "the scratch directory of an export"
tmp=$run_dir
stage=
trap 'rm -rf "$tmp" ${stage:+"$stage"}' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

progress export "format-patch $n commits, [$prefix k/$n]"
# core.abbrev fixed: git's default grows with the object count it
# estimates (loose objects counted otherwise than packed ones), and the
# index lines of one series must not depend on how the repository is stored
# --cover-letter: its shortlog and diffstat replace the cover's (below)
kgit -c core.abbrev=9 format-patch -q --zero-commit --no-signature --numbered --suffix=.mbox \
	--cover-letter --subject-prefix="$prefix" -o "$tmp/gen" "$base..$head" &&
	mv "$tmp/gen/0000-cover-letter.mbox" "$tmp/cover-gen.mbox" ||
	die "format-patch: could not write the patches into $tmp/gen (disk full? see above); $DEST is unchanged"

# add_headers FILE ID: Message-Id, In-Reply-To and References at the end
# of FILE's header block, whose folded lines (format-patch folds long
# subjects) are unfolded: b4 0.12 refuses header values with line feeds.
add_headers() {
	awk -v id="$2" -v parent="$cover_id" '
		!done && /^[ \t]/ { line = line " " substr($0, 2); next }
		!done && line != "" { print line; line = "" }
		!done && /^$/ {
			print "Message-Id: " id
			if (id != parent) {
				print "In-Reply-To: " parent
				print "References: " parent
			}
			done = 1
		}
		!done { line = $0; next }
		{ print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# set_ident FILE: the placeholder identity of From: and Signed-off-by:
# lines becomes the maintainer's
set_ident() {
	[ "$ident" != "$SERIES_IDENT_DEFAULT" ] || return 0
	awk -v ph="$SERIES_IDENT_DEFAULT" -v id="$ident" '
		$0 == "From: " ph { print "From: " id; next }
		$0 == "Signed-off-by: " ph { print "Signed-off-by: " id; next }
		{ print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# keep_notes FILE: the notes below '---' (not part of the commit) of the
# patch with the same subject in the old patches/, put back in place
keep_notes() {
	subj=$(sed -n 's/^Subject: \[[^]]*\] //p' "$1" | head -n 1)
	old=$(grep -lxF -e "Subject: [$(sed -n 's/^Subject: \[\([^]]*\)\] .*/\1/p' "$1" | head -n 1)] $subj" "$PATCHES"/*.mbox 2>/dev/null | head -n 1)
	[ -z "$old" ] && old=$(grep -l "^Subject: \[[^]]*\] $(printf '%s' "$subj" | sed 's/[][\.*^$/]/\\&/g')\$" "$PATCHES"/*.mbox 2>/dev/null | head -n 1)
	[ -n "$old" ] || return 0
	awk '/^---$/ { on = 1; next } on && /^ [^ ].*[|] / { exit } on { print }' "$old" >"$1.notes"
	[ -s "$1.notes" ] || { rm -f "$1.notes"; return 0; }
	awk -v notes="$1.notes" '
		!done && /^---$/ { print; while ((getline l < notes) > 0) print l; done = 1; next }
		{ print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1" && rm -f "$1.notes"
}

k=0
for f in "$tmp"/gen/*.mbox; do
	k=$((k + 1))
	add_headers "$f" "$(msgid $k)" && keep_notes "$f" && set_ident "$f" ||
		die "write: could not rewrite $f (disk full?); $DEST is unchanged"
done

# The shortlog and diffstat of the commits, as format-patch writes them
# into its own cover letter: what follows its blurb, up to the signature.
awk '/^\*\*\* BLURB HERE \*\*\*$/ { on = 1; getline; next }
	on && /^-- $/ { exit } on { print }' "$tmp/cover-gen.mbox" |
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/stat" && [ -s "$tmp/stat" ] ||
	die "format-patch: its cover letter has no shortlog and diffstat ($tmp/cover-gen.mbox); $DEST is unchanged"

# The cover letter: same text, new numbering, Message-Id, shortlog and
# diffstat (from the first "Name (N):" line to the "files changed" one),
# base-commit.
awk -v subj="[$prefix 0/$n]" -v id="$cover_id" -v base="$base" -v stat="$tmp/stat" '
	NR == 1 { print "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"; next }
	hdr == 0 && /^Subject:/ { sub(/\[[^]]*\]/, subj) }
	hdr == 0 && /^Message-Id:/ { print "Message-Id: " id; next }
	hdr == 0 && /^$/ { hdr = 1 }
	hdr && !st && /^[^ \t].* \([0-9]+\):$/ { st = 1
		while ((getline l < stat) > 0) print l
		next }
	st == 1 && /^ [0-9]+ files? changed/ { st = 2; next }
	st == 1 { next }
	/^base-commit: / { print "base-commit: " base; seen = 1; next }
	{ print }
	END { if (st != 2) exit 4; if (!seen) exit 3 }' "$PATCHES/0000-cover-letter.mbox" >"$tmp/cover.mbox" || {
	rc=$?
	[ $rc = 3 ] && die "cover: $PATCHES/0000-cover-letter.mbox has no 'base-commit:' line"
	[ $rc = 4 ] && die "cover: $PATCHES/0000-cover-letter.mbox has no shortlog and diffstat (an 'Author (N):' line, then a ' N files changed' one) for the export to replace"
	die "write: could not write $tmp/cover.mbox (disk full?); $DEST is unchanged"
}
set_ident "$tmp/cover.mbox" ||
	die "write: could not rewrite $tmp/cover.mbox (disk full?); $DEST is unchanged"

{
	sed -n '/^#/p' "$PATCHES/series"
	printf '%s cover\n' 0000-cover-letter.mbox
	for f in "$tmp"/gen/*.mbox; do
		printf '%s applied\n' "$(basename "$f")"
	done
	grep -E '^[^#[:space:]]+[[:space:]]+upstream[[:space:]]' "$PATCHES/series" || true
} >"$tmp/series" || die "write: could not write $tmp/series (disk full?); $DEST is unchanged"

# Every figure the mails quote has its source in $PATCHES/figures, and
# the records named give it (claims-lint): checked on the mails as
# written, before anything of $DEST changes.
mkdir "$tmp/lint" && cp "$tmp/cover.mbox" "$tmp/lint/0000-cover-letter.mbox" &&
	cp "$tmp"/gen/*.mbox "$tmp/series" "$tmp/lint/" ||
	die "write: could not copy the export into $tmp/lint (disk full?); $DEST is unchanged"
[ ! -d "$PATCHES/upstream" ] || cp -r "$PATCHES/upstream" "$tmp/lint/upstream" ||
	die "write: could not copy $PATCHES/upstream into $tmp/lint (disk full?); $DEST is unchanged"
claims_lint "$tmp/lint/series" "$PATCHES/figures" ||
	die "claims: the figures of the export are refused (above: $tmp/lint/ is the mails as exported); give each a source in $PATCHES/figures; $DEST is unchanged"

# Everything is copied next to $DEST first (the same file system), then
# renamed into place: a full disk fails before a file of $DEST changes.
mkdir -p "$DEST" || die "write: cannot create '$DEST'"
stage_make "$DEST" .export "the stage of an export"
stage=$run_dir
cp "$tmp/cover.mbox" "$stage/0000-cover-letter.mbox" && cp "$tmp"/gen/*.mbox "$stage/" &&
	cp "$tmp/series" "$stage/series" && cp "$PATCHES/figures" "$stage/figures" ||
	die "write: could not copy the export into '$stage' (disk full?); $DEST is unchanged"
if [ "$DEST" != "$PATCHES" ] && [ -d "$PATCHES/upstream" ]; then
	mkdir -p "$stage/upstream" && cp -r "$PATCHES/upstream/." "$stage/upstream/" ||
		die "write: could not copy $PATCHES/upstream into '$stage' (disk full?); $DEST is unchanged"
fi
# The renames are not cut by a signal, which would leave $DEST half old,
# half new: one that comes now is acted on once they are done.
export_rename() {
	if [ -r "$DEST/series" ]; then
		awk '!/^#/ && ($2 == "cover" || $2 == "applied") { print $1 }' "$DEST/series" |
		while read -r old; do
			[ -e "$stage/$old" ] || rm -f "$DEST/$old"
		done
	fi
	if [ -d "$stage/upstream" ]; then
		mkdir -p "$DEST/upstream"
		for f in "$stage"/upstream/*; do
			[ ! -e "$f" ] || mv -f -T "$f" "$DEST/upstream/${f##*/}"
		done
	fi
	# -T: each file renamed over its name (rename(2)), never into what
	# a name there may be a link to
	for f in "$stage"/*.mbox "$stage/series" "$stage/figures"; do
		mv -f -T "$f" "$DEST/${f##*/}"
	done
}
signals_held export_rename ||
	die "write: renaming the export into '$DEST' failed (above); its files in '$stage'"
if [ -n "$late" ]; then
	printf '%s: interrupted once the export was being renamed into %s: it is there whole\n' "$PROG" "$DEST" >&2
	exit "$late"
fi
progress export "wrote $((n + 1)) mails and series to $DEST"
