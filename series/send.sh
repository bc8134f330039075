#!/bin/sh
# send.sh: send the series with git send-email; a dry run unless SEND=1.
#
# To and Cc per patch come from the pinned tree's get_maintainer.pl (the
# worktree's MAINTAINERS), written into the headers of a copy of each
# mail; the cover letter goes to everyone any patch goes to.  FROM=<you>
# sets the sender (default: git config user.name and user.email, lib.sh:
# series_ident): one address, or it is refused.  With neither, a dry run
# uses the placeholder 'x86-copy-series <x86-copy-series@example.org>'
# and SEND=1 is refused.  SEND is 1, self or 0; anything else is refused.
#
# SEND=1 sends only what CI has passed: $OUT/ci/report.json (SEND_CI=<dir>
# for another make ci's) must be of exactly the commits of the current
# series (the base and every series commit: a make quick, a CI_COMMITS
# part or another ref is refused), every step of every commit in
# summary.txt passed (ok, same or reused), and no change the gate flags
# is left unaccepted.  Else nothing is sent and the reason is named.
# SEND_OVERRIDE='why' sends anyway: the refusal and the reason are printed
# and kept in $OUT/send-overrides.log.  SEND=self sends the real mails to
# FROM alone (b4's --reflect): no CI needed, nobody else gets them.
# SMTP_SERVER=<host or sendmail-like program>: git send-email's
# --smtp-server (default: your sendemail configuration).  SEND_TO and
# SEND_CC='Name <a@b>, c@d': more recipients of every mail (b4 send's
# --to and --cc), each one address.  The dry run lists each recipient
# with get_maintainer.pl's reason and the mails it gets.
# A dry run ends with what SEND=1 would do with these mails: send them,
# or refuse them and why (the same checks: the sender, CI's verdict).
# A version is sent once: SEND=1 writes $OUT/sent/vN (the toolkit
# commit, the date, the sender, the Message-Ids; make range-diff
# PREV=vN finds the version by it) and refuses to send vN again (its
# Message-Ids would be the same on the list): bump the version (make
# export VERSION=N+1), or SEND_OVERRIDE with a reason.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
case ${SEND:-} in
''|0|1|self) ;;
*) usage_die "SEND=1 sends, SEND=self sends to FROM alone, SEND=0 (or unset) is a dry run; not '$SEND'" ;;
esac
[ -z "${SEND_OVERRIDE+x}" ] || [ -n "$SEND_OVERRIDE" ] ||
	usage_die "SEND_OVERRIDE='' gives no reason: SEND_OVERRIDE='why this goes out without CI'"
# no mail is read through a link, before anything else
patches_plain

# ci_verdict: why the CI results do not pass the current series (a line),
# or nothing when they do: ci-verdict (report/verdict.c) reads ci-report's
# JSON and run.sh's summary.txt
ci_verdict() {
	cd_dir=${SEND_CI:-$OUT/ci}
	[ -f "$cd_dir/report.json" ] && [ -f "$cd_dir/summary.txt" ] || {
		echo "no CI results in $cd_dir (report.json, summary.txt): run 'make ci' on this series first"
		return 0
	}
	cd_want=$(commit_list) || { echo "the series' commits cannot be listed"; return 0; }
	cd_rc=0
	# shellcheck disable=SC2086 # the commits, a word each
	cd_why=$("$BIN/ci-verdict" "$cd_dir/report.json" "$cd_dir/summary.txt" $cd_want) || cd_rc=$?
	case $cd_rc/$cd_why in
	0/) ;;
	1/?*) printf '%s\n' "$cd_why" ;;
	*) echo "ci-verdict failed (exit $cd_rc): the CI results in $cd_dir cannot be judged" ;;
	esac
}
worktree_check
[ -e "$WORKTREE/scripts/get_maintainer.pl" ] ||
	die "get_maintainer: $WORKTREE/scripts/get_maintainer.pl is missing: run 'make kernel-tree' first"
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git-email: git send-email is not installed: run 'make deps' (package git-email)"
list=$("$SERIES_CHECK" "$PATCHES/series") || exit
# every figure the mails quote from its source, as computed (claims-lint)
tool_built claims-lint ci-verdict
claims_lint "$PATCHES/series" "$PATCHES/figures" ||
	die "claims: not sent: the figures of the mails are refused (above): give each a source in $PATCHES/figures"
from=$(series_ident)
[ "${SEND:-0}" = 0 ] || [ "$from" != "$SERIES_IDENT_DEFAULT" ] ||
	die "from: no sender: the placeholder '$from' is no one's address: set FROM='Name <you@example.org>' or git config user.name and user.email"
# one address: "Name <you@example.org>" or "you@example.org"
printf '%s\n' "$from" | grep -Eqx '([^<>@]*<[^<>@ ]+@[^<>@ ]+>|[^<>@ ]+@[^<>@ ]+)' ||
	usage_die "FROM='$from' is not one address: FROM='Name <you@example.org>'"

# the version of the mails (their cover's Subject), sent once
cover=$(printf '%s\n' "$list" | awk -F'\t' '$1 == "cover" { print $2 }')
version=
[ -z "$cover" ] || version=$(cover_version "$PATCHES/$cover")
sent_rec=$OUT/sent/v${version:-1}
# send_verdict: why SEND=1 refuses these mails (CI's verdict, a version
# sent already), or nothing
send_verdict() {
	sv_why=$(ci_verdict)
	[ ! -f "$sent_rec" ] ||
		sv_why="${sv_why:+$sv_why; }v${version:-1} was sent already ($(sed -n 's/^date //p' "$sent_rec"), $sent_rec): its Message-Ids would be on the list twice; bump the version (make export VERSION=$((${version:-1} + 1)))"
	printf '%s' "$sv_why"
}
# SEND_TO, SEND_CC: a list of addresses, each one address (as FROM)
for v in SEND_TO SEND_CC; do
	eval "lv=\${$v:-}"
	# shellcheck disable=SC2154 # lv: set by the eval
	# a backslash or a control character would make another header of
	# the value (awk -v reads escapes; a line break ends a header)
	case $lv in
	*\\* | *[[:cntrl:]]*) usage_die "$v: a backslash or a control character is in it: addresses only" ;;
	esac
	printf '%s\n' "$lv" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep . | while read -r a; do
		printf '%s\n' "$a" | grep -Eqx '([^<>@]*<[^<>@ ]+@[^<>@ ]+>|[^<>@ ]+@[^<>@ ]+)' ||
			usage_die "$v: '$a' is not one address: $v='Name <you@example.org>, other@example.org'"
	done || exit
done
# SEND=1: CI's verdict first, so that a refusal comes before any work
if [ "${SEND:-0}" = 1 ]; then
	why=$(send_verdict)
	if [ -n "$why" ] && [ -z "${SEND_OVERRIDE:-}" ]; then
		die "ci: not sent: $why (SEND_OVERRIDE='why' sends anyway, kept in $OUT/send-overrides.log)"
	elif [ -n "$why" ]; then
		warn "ci: $why; sent anyway: SEND_OVERRIDE='$SEND_OVERRIDE'"
		# a log, added to: a link there refused, not written through
		mkdir -p "$OUT" && no_link "$OUT/send-overrides.log" &&
			printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(commit_list head)" \
				"$from" "$why" "$SEND_OVERRIDE" >>"$OUT/send-overrides.log" ||
			die "ci: cannot write $OUT/send-overrides.log (disk full?): nothing sent"
	fi
fi

stage_make "${TMPDIR:-/tmp}" xcs-send "the scratch directory of a send"
tmp=$run_dir
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# with_rcpt FILE TO CC: FILE with "To: TO" and "Cc: CC" (when not empty)
# at the end of its headers
with_rcpt() {
	awk -v to="$2" -v cc="$3" '!done && /^$/ { if (to != "") print "To: " to; if (cc != "") print "Cc: " cc; done = 1 } { print }' "$1"
}
# addresses FILE: its lines, one address each, as a header's list, in
# get_maintainer.pl's order (each once)
addresses() {
	awk '!seen[$0]++' "$1" | paste -sd, - | sed 's/,/, /g'
}
# Each patch's To and Cc, asked of get_maintainer.pl once, go into its
# headers (a copy in $tmp): what the dry run shows is what is sent.  A
# patch whose recipients cannot be found is not sent to nobody.
files=""
: >"$tmp/to" && : >"$tmp/cc" || die "tmp: cannot write in $tmp"
for f in $(printf '%s\n' "$list" | awk -F'\t' '$1 == "applied" { print $2 }'); do
	b=$tmp/${f##*/}
	sh "$TOP/series/get-maintainer.sh" to "$PATCHES/$f" >"$b.to" &&
		sh "$TOP/series/get-maintainer.sh" cc "$PATCHES/$f" >"$b.cc" ||
		die "get_maintainer: no recipients for $f (see above, or is $tmp full?); nothing sent"
	cat "$b.to" >>"$tmp/to" && cat "$b.cc" >>"$tmp/cc" &&
		with_rcpt "$PATCHES/$f" "$(addresses "$b.to")${SEND_TO:+, $SEND_TO}" "$(addresses "$b.cc")${SEND_CC:+, $SEND_CC}" >"$b" ||
		die "tmp: could not write $b (disk full?); nothing sent"
	files="$files $b"
	# the dry run: each recipient's reason, and which mails
	if [ "${SEND:-0}" = 0 ]; then
		np=$(printf '%s\n' "$f" | sed -n 's/^0*\([0-9][0-9]*\)-.*/\1/p')
		sh "$TOP/series/get-maintainer.sh" roles "$PATCHES/$f" >"$b.roles" ||
			die "get_maintainer: no reasons for $f (see above); nothing sent"
		sed "s|\$|	${np:-$f}|" "$b.roles" >>"$tmp/roles" || die "tmp: could not write $tmp/roles (disk full?)"
	fi
done
# the cover letter goes to everyone any patch goes to
if [ -n "$cover" ]; then
	sort -u "$tmp/to" >"$tmp/to.all" && sort -u "$tmp/cc" >"$tmp/cc.all" &&
		with_rcpt "$PATCHES/$cover" "$(addresses "$tmp/to.all")${SEND_TO:+, $SEND_TO}" "$(addresses "$tmp/cc.all")${SEND_CC:+, $SEND_CC}" >"$tmp/${cover##*/}" ||
		die "cover: could not write $tmp/${cover##*/} (disk full?); nothing sent"
	files="$tmp/${cover##*/}$files"
fi

if [ "${SEND:-0}" = 1 ]; then
	mode=""
	progress send "sending $(echo "$files" | wc -w) mails as $from"
elif [ "${SEND:-0}" = self ]; then
	mode=self
	# copies without the To: and Cc: of their headers
	mkdir "$tmp/self" || die "tmp: cannot write in $tmp"
	self=
	for f in $files; do
		awk 'h && /^$/ { h = 0 } h && /^[ \t]/ && skip { next } h { skip = tolower($0) ~ /^(to|cc):/ } !skip || !h { print }' h=1 \
			"$f" >"$tmp/self/${f##*/}" || die "tmp: cannot write $tmp/self (disk full?); nothing sent"
		self="$self $tmp/self/${f##*/}"
	done
	files=$self
	progress send "sending $(echo "$files" | wc -w) mails to $from alone (SEND=self)"
else
	mode=--dry-run
	progress send "dry run (SEND=1 sends): $(echo "$files" | wc -w) mails as $from"
	# what SEND=1 would say, asked now: said after git's listing
	would=
	[ "$from" != "$SERIES_IDENT_DEFAULT" ] ||
		would="no sender: the placeholder '$from' is no one's address (FROM= or git config user.email)"
	why=$(send_verdict)
	[ -z "$why" ] || would="${would:+$would; }$why"
fi
# the user's own git configuration for send-email (sendemail.smtpServer,
# ...), which lib.sh hides from the toolkit's other git calls
# shellcheck disable=SC2086 # $mode: none or one option; $files: a path each
(unset GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
if [ "$mode" = self ]; then
	# the cover's To:/Cc: lines and every address in the mails left out
	git -C "$TOP" send-email --confirm=never --no-chain-reply-to --suppress-cc=all \
		--no-to --no-cc --to="$from" --from="$from" \
		${SMTP_SERVER:+--smtp-server="$SMTP_SERVER"} $files
else
	git -C "$TOP" send-email $mode --confirm=never --no-chain-reply-to \
		--suppress-cc=self --from="$from" \
		${SMTP_SERVER:+--smtp-server="$SMTP_SERVER"} $files
fi)
if [ "$mode" = --dry-run ] && [ -s "$tmp/roles" ]; then
	# "Name <addr> (reason)<tab>N" lines: a recipient a line, its reasons
	# once each, the patches it gets (and the cover, which goes to all)
	echo "Recipients, and why (get_maintainer.pl on each patch's diff):"
	awk -F '\t' '{
		r = $1; a = r; why = ""
		if (match(r, / \(.*\)$/)) { a = substr(r, 1, RSTART - 1); why = substr(r, RSTART + 2, RLENGTH - 3) }
		if (!(a in seen)) { seen[a] = 1; order[++n] = a }
		if (why != "" && index(";" whys[a] ";", ";" why ";") == 0) whys[a] = whys[a] (whys[a] == "" ? "" : ";") why
		if (index(" " pats[a] " ", " " $2 " ") == 0) pats[a] = pats[a] (pats[a] == "" ? "" : " ") $2
	} END {
		for (i = 1; i <= n; i++) {
			a = order[i]; w = whys[a]; gsub(/;/, "; ", w)
			printf "  %s: %s; patches %s and the cover\n", a, w, pats[a]
		}
	}' "$tmp/roles"
	[ -z "${SEND_TO:-}" ] || echo "  ${SEND_TO}: SEND_TO, every mail"
	[ -z "${SEND_CC:-}" ] || echo "  ${SEND_CC}: SEND_CC, every mail"
fi
if [ -z "$mode" ]; then
	# what was sent, and from which toolkit commit (make range-diff PREV=vN)
	mkdir -p "$OUT/sent" && {
		echo "version ${version:-1}"
		echo "toolkit $(git -C "$TOP" rev-parse HEAD)"
		echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "from $from"
		for f in $files; do sed -n '/^$/q; s/^Message-I[dD]: /message-id /p' "$f"; done
	} | write_file "$sent_rec" ||
		warn "sent: the mails went out, but $sent_rec could not be written (disk full?): write it, or a second SEND=1 of v${version:-1} is not refused"
	progress send "sent: v${version:-1}, $(echo "$files" | wc -w) mails; kept in $sent_rec"
elif [ "$mode" = --dry-run ]; then
	if [ -n "$would" ]; then
		progress send "dry run done: SEND=1 would refuse these mails now: $would"
	else
		progress send "dry run done: SEND=1 would send these mails (CI's results pass this series, claims-lint passes)"
	fi
fi
