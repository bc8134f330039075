#!/bin/sh
# repin.sh: move the series to another kernel, with a status per patch.
#
#   TO=<rev> repin.sh            a commit of the kernel repository: a tag of
#                                your own tree (KERNEL_TREE=...), or a
#                                kernel imported before
#   TO_DEBIAN=<version> repin.sh another version of Debian's linux-source-6.12:
#                                downloaded with apt-get download (the
#                                installed package is left alone), imported
#                                into kernel-tree as tag debian/<version>
#
# Each applied patch, in order, on the new base, is one of:
#   applies                      exactly
#   applies-offset / applies-fuzz  with the hunks moved / with fuzz
#   upstream                     its reverse applies: already in the kernel
#   conflict                     with the file and hunk that fail
# Only when no patch conflicts are the base and series refs moved (and, for
# TO_DEBIAN, series/pin.conf and the kernel-tree gitlink rewritten for you
# to commit).  A failed or interrupted re-pin leaves the pin, the refs and
# the worktree as they were; TO and TO_DEBIAN together, or a TO_DEBIAN
# that is no Debian version, are refused before anything is done.  One
# run at a time: an apply, repin or range-diff that runs is named and the
# repin refused (lib-lock.sh: worktree_lock); a signal says "interrupted".
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
work=$OUT/repin

# the options, before anything is read or written
[ -z "${TO:-}" ] || [ -z "${TO_DEBIAN:-}" ] ||
	usage_die "TO='$TO' and TO_DEBIAN='$TO_DEBIAN': give one of them"
if [ -n "${TO_DEBIAN:-}" ]; then
	[ -z "${KERNEL_TREE:-}" ] ||
		usage_die "TO_DEBIAN imports into kernel-tree; with KERNEL_TREE use TO=<rev>"
	# a Debian version: [epoch:]upstream[-revision]
	printf '%s\n' "$TO_DEBIAN" | grep -Eqx '([0-9]+:)?[0-9][A-Za-z0-9.+~-]*' ||
		usage_die "TO_DEBIAN='$TO_DEBIAN' is not a Debian version (as 6.12.115-2~deb12u1; apt-cache policy $PIN_PACKAGE lists them)"
fi
[ -n "${TO:-}${TO_DEBIAN:-}" ] || usage_die "TO=<rev> or TO_DEBIAN=<version> make repin"
# no patch is read through a link, before anything else
patches_plain

worktree_check
worktree_lock "repin onto ${TO:-$TO_DEBIAN}"
am_clean_stale
old_base=$(base_commit)
old_head=$(kgit rev-parse -q --verify "$REF_NS/series" || echo "$old_base")
list=$("$SERIES_CHECK" "$PATCHES/series") || exit
rm -rf "$work"
mkdir -p "$work" || die "work: cannot create '$work'"

# import_debian VERSION: fetch and import another linux-source-6.12
import_debian() {
	v=$1
	tag=debian/$(printf %s "$v" | tr '~:' '_.')
	if kgit rev-parse -q --verify "$tag^{commit}" >/dev/null; then
		echo "$tag"
		return 0
	fi
	progress repin "apt-get download $PIN_PACKAGE=$v"
	(cd "$work" && apt-get download -q "$PIN_PACKAGE=$v" >/dev/null 2>&1) ||
		die "download: 'apt-get download $PIN_PACKAGE=$v' failed: no such version? (apt-cache policy $PIN_PACKAGE)"
	dpkg-deb -x "$work"/*.deb "$work/pkg"
	tb=$(find "$work/pkg" -name 'linux-source-*.tar.xz' | head -n 1)
	[ -n "$tb" ] || die "download: no linux-source tarball in the $v package"
	sum=$(sha256sum "$tb" | cut -d' ' -f1)
	# the package's own mtime of the tarball: the same for every download
	date=$(date -u -d "@$(stat -c %Y "$tb")" +%Y-%m-%dT%H:%M:%SZ)
	import_tarball "$work/import" "$tb" "$v" "$sum" "$date" >&2
	kgit fetch -q "$work/import" "+import:refs/tags/$tag"
	printf 'PIN_VERSION=%s\nPIN_SHA256=%s\nPIN_DATE=%s\nPIN_TAG=%s\n' "$v" "$sum" "$date" "$tag" >"$work/pin.new"
	# the tarball where an import of this pin looks for it (kernel-tree.sh:
	# pin_tarball); the package, its files and the import's repository
	# (2 GB) are not kept
	mkdir -p "$OUT/pin/$v" && mv -f "$tb" "$OUT/pin/$v/${PIN_TARBALL##*/}" ||
		die "download: cannot move the tarball into $OUT/pin/$v (disk full?)"
	rm -rf "$work/import" "$work/pkg" "$work"/*.deb
	echo "$tag"
}

if [ -n "${TO_DEBIAN:-}" ]; then
	TO=$(import_debian "$TO_DEBIAN") || exit 1
fi
new_base=$(kgit rev-parse -q --verify "$TO^{commit}") ||
	die "base: '$TO' is not a commit in $(kernel_repo)"

[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
	die "worktree: $WORKTREE has local changes: commit or discard them first"
# on any exit before the refs move (a conflict, a signal, an error): end
# the am, restore the files of the patch it was in, back to the old head,
# whatever state git is in (index.lock behind: lib.sh am_undo); set -e
# is off, so that a failing git cannot end it before its message
sig=
pin_tmp=
restore() {
	set +e
	if why=$(am_undo "$old_head" 2>&1); then
		rm -f "$(am_marker)"
		why=
	fi
	[ -z "$pin_tmp" ] || rm -f "$pin_tmp"
	if [ -n "$why" ]; then
		warn "worktree: $WORKTREE could not be put back at $old_head: $why; the next repin or apply cleans it up"
	elif [ -n "$sig" ]; then
		printf '%s: interrupted (%s): the pin, the refs and %s are as they were\n' "$PROG" "$sig" "$WORKTREE" >&2
	fi
}
committer_env
am_marker_write "repin onto $new_base" ||
	die "worktree: cannot write '$(am_marker)' (disk full?); nothing changed"
trap restore EXIT
trap 'sig=SIGINT; exit 130' INT
trap 'sig=SIGTERM; exit 143' TERM
trap 'sig=SIGHUP; exit 129' HUP
wgit checkout -q --detach "$new_base"

progress repin "$(printf %.12s "$old_base") -> $(printf %.12s "$new_base") ($TO)"
conflicts=0
# the files the new base changes: a patch that touches one of them may
# apply and still mean something else there, and its figures (measured
# on the old base) may not hold
base_changed=$(kgit diff --name-only "$old_base" "$new_base") ||
	die "base: cannot diff $(printf %.12s "$old_base") against $(printf %.12s "$new_base")"
moved=0
printf '%-16s %s\n' status patch >"$work/status" ||
	die "work: cannot write '$work/status' (disk full?)"
for f in $(printf '%s\n' "$list" | awk -F'\t' '$1 == "applied" { print $2 }'); do
	p=$PATCHES/$f
	detail=""
	if out=$(cd "$WORKTREE" && patch -p1 --dry-run -F0 -s <"$p" 2>&1) &&
	   out=$(cd "$WORKTREE" && patch -p1 --dry-run -F0 <"$p" 2>&1); then
		if printf '%s\n' "$out" | grep -q 'offset'; then
			status=applies-offset
			detail=$(printf '%s\n' "$out" | grep -o 'offset -\{0,1\}[0-9]* lines\{0,1\}' | sort -u | tr '\n' ' ')
		else
			status=applies
		fi
	elif out2=$(cd "$WORKTREE" && patch -p1 --dry-run -F2 <"$p" 2>&1); then
		status=applies-fuzz
		detail=$(printf '%s\n' "$out2" | grep -o 'fuzz [0-9]*' | sort -u | tr '\n' ' ')
	elif (cd "$WORKTREE" && git apply --check -R "$p") >/dev/null 2>&1; then
		status=upstream
		detail="reverse-applies"
	else
		status=conflict
		out=$(cd "$WORKTREE" && patch -p1 --dry-run -F2 <"$p" 2>&1 || true)
		detail=$(printf '%s\n' "$out" | awk '
			/^checking file / { file = $3 }
			/^Hunk #[0-9]+ FAILED/ { printf "%s hunk %s; ", file, substr($2, 2) }
			/can.t find file/ { printf "missing file; " }')
		conflicts=$((conflicts + 1))
	fi
	under=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$p" | sort -u | while read -r pf; do
		if printf '%s\n' "$base_changed" | grep -qxF "$pf"; then printf '%s ' "$pf"; fi
	done)
	if [ -n "$under" ]; then
		detail="${detail:+$detail; }the new base changes ${under% } under it"
		moved=$((moved + 1))
	fi
	printf '%-16s %s %s\n' "$status" "$f" "$detail" >>"$work/status" ||
		die "work: cannot write '$work/status' (disk full?)"
	case $status in
	applies|applies-offset)
		wam -q "$p" >/dev/null 2>&1 || die "git am: git am of $f failed after patch said it applies" ;;
	applies-fuzz)
		wam -q -3 "$p" >/dev/null 2>&1 || {
			am_undo HEAD || die "git am: could not end the failed git am of $f (see above)"
			sed -i "\$s/^applies-fuzz /conflict       /" "$work/status"
			conflicts=$((conflicts + 1))
		} ;;
	esac
done
cat "$work/status"
if [ "$conflicts" -gt 0 ]; then
	die "conflict: $conflicts patch(es) conflict on $TO: the pin, the refs and the worktree are unchanged (status: $work/status)"
fi
new_head=$(wgit rev-parse HEAD)
# the new pin.conf is written in full before any ref moves, into a new
# file beside it (lib.sh: tmp_beside; scripts/ is tracked, and a link a
# pull brought at a fixed name there would be written through): a full
# disk fails here, with nothing changed
if [ -f "$work/pin.new" ]; then
	set --
	while IFS='=' read -r k v; do
		set -- "$@" -e "s|^$k=.*|$k='$v'|"
	done <"$work/pin.new"
	kver=$(make -s -C "$WORKTREE" kernelversion 2>/dev/null || true)
	# pin.conf is sourced: what goes in is a version's characters only
	case $kver in
	*[!0-9A-Za-z.+~-]*) die "pin: the kernel's version '$kver' (make kernelversion) is not a version: nothing changed" ;;
	esac
	[ -z "$kver" ] || set -- "$@" -e "s|^PIN_KVER=.*|PIN_KVER=$kver|"
	pin_tmp=$(tmp_beside "$TOP/series/pin.conf") &&
		sed "$@" "$TOP/series/pin.conf" >"$pin_tmp" ||
		die "pin: cannot write '${pin_tmp:-a new file in $TOP/scripts}' (disk full?); nothing changed"
fi
trap - EXIT INT TERM HUP
rm -f "$(am_marker)"
# the two refs and the pin move together: a Ctrl-C between them would
# leave the base of one pin with the series of another
repin_commit() {
	kgit update-ref "$REF_NS/base" "$new_base"
	kgit update-ref "$REF_NS/series" "$new_head"
	[ -z "$pin_tmp" ] || mv -f -T "$pin_tmp" "$TOP/series/pin.conf"
}
signals_held repin_commit ||
	die "repin: moving the refs or series/pin.conf failed (above): check $REF_NS/base, $REF_NS/series and series/pin.conf"
if [ -f "$work/pin.new" ]; then
	git -C "$TOP" update-index --add --cacheinfo "160000,$new_base,kernel-tree" ||
		die "pin: the refs and series/pin.conf name $TO, but the kernel-tree gitlink could not be set: run 'git -C $TOP update-index --add --cacheinfo 160000,$new_base,kernel-tree'"
	progress repin "series/pin.conf and the kernel-tree gitlink now name $TO: review and commit them, then 'make export'"
fi
if [ -n "$late" ]; then
	printf '%s: interrupted once the refs and the pin were being moved: they name the new base together\n' "$PROG" >&2
	exit "$late"
fi
progress repin "series re-pinned: base $(printf %.12s "$new_base"), head $(printf %.12s "$new_head")"
# the figures of patches/ are the old base's records
[ "$moved" = 0 ] && [ "$old_base" = "$new_base" ] ||
	warn "figures: the changelogs' figures were measured on $(printf %.12s "$old_base")$([ "$moved" = 0 ] || echo ", and the new base changes files under $moved patch(es) (status above)"): measure them again on this base before posting: make, then update patches/figures and make export"
