# scripts/lib-git.sh: the kernel repository and the worktree: which
# repository (KERNEL_TREE), its refs (REF_NS), the worktree (WORKTREE),
# the toolkit's git am there and its clean-up after a kill, the commits
# of the series, the pinned import.  Sourced by scripts/lib.sh (after its
# base: die, progress, write_file); POSIX sh.

# The kernel repository the toolkit works on: the pinned submodule, or the
# user's own clone (KERNEL_TREE=...), which is only ever used through a
# linked worktree and refs under $REF_NS.
kernel_repo() {
	if [ -n "${KERNEL_TREE:-}" ]; then
		printf '%s\n' "$KERNEL_TREE"
	else
		printf '%s\n' "$TOP/kernel-tree"
	fi
}
# git_dir_ok DIR: git reads the repository at DIR, or 1 (the caller says
# why it needs one); where git refuses it as another user's (its
# safe.directory check, "dubious ownership"), the run stops with git's own
# words and the remedies that work, never with a guess of its own (that
# it is no repository, or another repository's worktree)
git_dir_ok() {
	gdo_err=$(git -C "$1" rev-parse --git-dir 2>&1 >/dev/null) && return 0
	case $gdo_err in
	*"dubious ownership"*)
		gdo_owner=$(stat -c %U "$1" 2>/dev/null) || gdo_owner='another user'
		die "git: $1: git refuses it: $(printf '%s' "$gdo_err" | tr '\n\t' '  ' | tr -s ' ')
  it belongs to $gdo_owner, and this run is $(id -un): run as $gdo_owner, or, trusting its files (git runs their hooks and config), do what git says above; nothing changed" ;;
	esac
	return 1
}

# kernel_settings_check: the settings that say which kernel repository
# and which refs a run works on (REF_NS, KERNEL_BASE, KERNEL_TREE) are
# what they may be, or the run stops (exit 2 for a misused setting, 1
# for a KERNEL_TREE git cannot read).  Called by each script that works
# on the kernel repository, first thing, not at source time: a script
# that never touches it (a report, a guest run) is not refused for them.
kernel_settings_check() {
	# REF_NS (tests give their own) stays in the toolkit's namespace: with
	# KERNEL_TREE it is written in the user's repository.
	case $REF_NS in
	refs/x86-copy-series|refs/x86-copy-series-?*) ;;
	*) usage_die "REF_NS='$REF_NS' must be refs/x86-copy-series or refs/x86-copy-series-<name>: the toolkit writes no other refs" ;;
	esac
	# KERNEL_BASE names a commit of the user's own tree; the pinned tree's
	# base is the pin.  Without KERNEL_TREE it would be ignored: refuse it.
	[ -z "${KERNEL_BASE:-}" ] || [ -n "${KERNEL_TREE:-}" ] ||
		usage_die "KERNEL_BASE='$KERNEL_BASE' is for your own linux clone: set KERNEL_TREE=<its path> too (the pinned kernel-tree's base is the pin, $PIN_TAG)"
	[ -n "${KERNEL_TREE:-}" ] || return 0
	# KERNEL_TREE is the top of a repository (or a bare one), not a
	# directory in one: git would work on whatever repository is above
	# it.  One git a check: bare or not, its git directory, its top (a
	# bare one has none); where git reads nothing there, git_dir_ok says
	# why if git refused another user's tree.
	kt_dir=$(cd "$KERNEL_TREE" 2>/dev/null && pwd -P) || kt_dir=
	kt_out=
	[ -z "$kt_dir" ] ||
		kt_out=$(git -C "$kt_dir" rev-parse --is-bare-repository --absolute-git-dir --show-toplevel 2>/dev/null) || true
	kt_bare='' kt_gd='' kt_top=''
	{ read -r kt_bare; read -r kt_gd; read -r kt_top; } <<-EOF || true
	$kt_out
	EOF
	case $kt_bare in
	true) kt_top=$kt_gd ;;
	false) ;;
	*) kt_top= && [ -z "$kt_dir" ] || git_dir_ok "$kt_dir" || true ;;
	esac
	[ -n "$kt_dir" ] && [ "$(cd "${kt_top:-/nonexistent}" 2>/dev/null && pwd -P)" = "$kt_dir" ] ||
		die "repo: KERNEL_TREE='$KERNEL_TREE' is not a git repository${kt_top:+ (it is a directory inside $kt_top)}: name the top of your linux clone"
}

# The worktree where patches are applied and commits are checked out for
# building; never the user's own working tree.
WORKTREE=${WORKTREE:-$OUT/tree}

# (kernel_repo's choice without its subshell: a run calls this hundreds
# of times)
kgit() {
	git -C "${KERNEL_TREE:-$TOP/kernel-tree}" "$@"
}

wgit() {
	git -C "$WORKTREE" "$@"
}

# wam ARG...: git am in $WORKTREE, with its gc --auto in the foreground:
# one it detached would hold the run's worktree_lock long after the run
wam() {
	wgit -c gc.autoDetach=false -c maintenance.autoDetach=false am "$@"
}

# worktree_check: $WORKTREE exists and is a worktree of $(kernel_repo).
# Check it before moving the worktree or writing a ref: with KERNEL_TREE
# naming another repository, commits and refs would land in two places.
worktree_check() {
	[ -e "$WORKTREE/.git" ] ||
		die "worktree: $WORKTREE is missing: run 'make kernel-tree' first"
	git_dir_ok "$(kernel_repo)" || true
	git_dir_ok "$WORKTREE" || true
	wt_common=$(cd "$WORKTREE" && cd "$(git rev-parse --git-common-dir)" && pwd -P) ||
		die "worktree: $WORKTREE is not a git worktree: remove it and run 'make kernel-tree'"
	wt_mine=$(cd "$(kernel_repo)" 2>/dev/null && cd "$(git rev-parse --git-common-dir)" && pwd -P) ||
		die "repo: '$(kernel_repo)' is not a git repository"
	[ "$wt_common" = "$wt_mine" ] ||
		die "worktree: $WORKTREE belongs to the repository $wt_common, not to $(kernel_repo) (KERNEL_TREE): use the repository it belongs to, or remove it ('rm -rf $WORKTREE; git -C $wt_common worktree prune'); nothing changed"
}


# A git am of the toolkit in $WORKTREE (apply, repin) leaves this marker in
# the worktree's own git directory while it runs: a run killed outright
# (SIGKILL, a power cut) is then known to be ours, and the next one cleans
# what it left, instead of calling it the user's local changes.  It holds
# the owner record of the run, then what it does (am_marker_write WHAT);
# a marker whose owner is alive is a run's that goes on, never cleaned.
am_marker() {
	printf '%s/x86-copy-series-am\n' "$(wgit rev-parse --absolute-git-dir)"
}

am_marker_write() {
	printf '%s %s\n' "$(proc_owner)" "$1" | write_file "$(am_marker)"
}

# am_restore PATCH: put the files PATCH names back as HEAD has them (a new
# file of it is removed): what a git am cut short in PATCH leaves behind
am_restore() {
	sed -n 's|^--- a/\([^	]*\).*|\1|p; s|^+++ b/\([^	]*\).*|\1|p
		s|^rename from ||p; s|^rename to ||p; s|^copy to ||p' "$1" | sort -u |
	while IFS= read -r p; do
		if wgit cat-file -e "HEAD:$p" 2>/dev/null; then
			wgit checkout -q HEAD -- "$p"
		else
			wgit rm -q --cached --ignore-unmatch -- "$p" >/dev/null
			rm -f "$WORKTREE/$p"
		fi
	done
}

# index_lock_free GITDIR: GITDIR holds no index.lock: one a running
# process has open (a git of this run, ending) is waited for, up to 300
# looks; one that no process has open (a git killed in the middle) is
# removed.  /proc shows the lock by its resolved path: GITDIR is resolved
# too (a symlinked OUT), or a live lock would look unheld and be removed.
index_lock_free() {
	ilf=$(cd "$1" && pwd -P)/index.lock || return 1
	ilf_n=0
	while [ -e "$ilf" ]; do
		if [ -z "$(find /proc/[0-9]*/fd -lname "$ilf" 2>/dev/null | head -n 1)" ]; then
			rm -f "$ilf" || return 1
			continue
		fi
		ilf_n=$((ilf_n + 1))
		[ "$ilf_n" -le 300 ] || {
			echo "a running git holds $ilf (ls -l /proc/[0-9]*/fd | grep index.lock finds it)" >&2
			return 1
		}
		sleep 0.1
	done
}

# am_undo [COMMIT]: end the toolkit's git am in $WORKTREE whatever state
# a signal, a kill or a failure left git in (index.lock behind, the am in
# progress, the files of a patch half written, a file staged), and, with
# COMMIT, check COMMIT out (the caller's run began with a clean tree: a
# file staged that HEAD lacks is removed).  It runs in a subshell with set -e off, so it
# never ends its caller half-way (a trap, under set -e): 0 when no am is
# left and, with COMMIT, the worktree is at COMMIT and clean; else 1 and
# the reason on stderr.
am_undo() (
	set +e
	gd=$(wgit rev-parse --absolute-git-dir) || {
		echo "git cannot read $WORKTREE" >&2
		exit 1
	}
	index_lock_free "$gd" || exit 1
	[ ! -f "$gd/rebase-apply/patch" ] || am_restore "$gd/rebase-apply/patch" 2>/dev/null
	index_lock_free "$gd" || exit 1
	# with COMMIT, the caller's run owns the tree, clean when it began: a
	# file staged that HEAD lacks is the run's, and the abort and the
	# checkout would leave it behind, untracked
	[ -z "${1:-}" ] ||
		wgit diff --cached --name-only --no-renames --diff-filter=A -z HEAD 2>/dev/null |
		(cd "$WORKTREE" && xargs -0 -r rm -f --)
	if [ -d "$gd/rebase-apply" ]; then
		# git am wants a committer even to abort
		committer_env
		wgit am --abort >/dev/null 2>&1 || wgit am --quit >/dev/null 2>&1 || {
			echo "git am --abort and --quit failed in $WORKTREE" >&2
			exit 1
		}
	fi
	[ -n "${1:-}" ] || exit 0
	au_err=$(wgit checkout -q -f --detach "$1" 2>&1) || {
		echo "git checkout of $1 failed: $au_err" >&2
		exit 1
	}
	[ "$(wgit rev-parse HEAD 2>/dev/null)" = "$(wgit rev-parse "$1^{commit}" 2>/dev/null)" ] &&
	[ -z "$(wgit status --porcelain --untracked-files=no 2>/dev/null)" ] || {
		echo "$WORKTREE is not clean at $1 after the checkout (git -C $WORKTREE status)" >&2
		exit 1
	}
)

# worktree_idle: refuse $WORKTREE while a git operation that the toolkit
# did not start is in progress there, as git itself tells them apart (the
# worktree's own git directory, wt_status_get_state()): a rebase
# (rebase-merge/, or rebase-apply/ of git rebase --apply), a merge, a
# cherry-pick or revert (one commit, or a sequence: sequencer/), a
# bisect.  apply, repin and range-diff check other commits out and run
# git am there: under a rebase stopped at 'edit', or a bisect, they broke
# it.  Each is named with the command that ends it; nothing changes.  (A
# git am is am_clean_stale's: a killed run of ours leaves one.)  Call it
# under worktree_lock, before anything moves.
worktree_idle() {
	wi_gd=$(wgit rev-parse --absolute-git-dir) ||
		die "worktree: $WORKTREE: git cannot read it"
	wi_git="git -C $WORKTREE"
	if [ -d "$wi_gd/rebase-merge" ] || [ -f "$wi_gd/rebase-apply/rebasing" ]; then
		wi_what="a rebase" wi_end="'$wi_git rebase --continue' until it ends, or '$wi_git rebase --abort'"
	elif [ -f "$wi_gd/MERGE_HEAD" ]; then
		wi_what="a merge" wi_end="commit it, or '$wi_git merge --abort'"
	elif [ -f "$wi_gd/CHERRY_PICK_HEAD" ]; then
		wi_what="a cherry-pick" wi_end="'$wi_git cherry-pick --continue', or '$wi_git cherry-pick --abort'"
	elif [ -f "$wi_gd/REVERT_HEAD" ]; then
		wi_what="a revert" wi_end="'$wi_git revert --continue', or '$wi_git revert --abort'"
	elif [ -d "$wi_gd/sequencer" ]; then
		# a sequence whose commit in hand is done: its next is in todo
		wi_cmd=revert
		[ "$(sed -n '1s/[[:space:]].*//p' "$wi_gd/sequencer/todo" 2>/dev/null)" = revert ] ||
			wi_cmd=cherry-pick
		wi_what="a $wi_cmd of several commits" wi_end="'$wi_git $wi_cmd --continue', or '$wi_git $wi_cmd --abort'"
	elif [ -f "$wi_gd/BISECT_START" ]; then
		wi_what="a bisect" wi_end="'$wi_git bisect reset'"
	else
		return 0
	fi
	die "worktree: $wi_what that the toolkit did not start is in progress in $WORKTREE: end it ($wi_end), then run this again; nothing changed"
}

# am_clean_stale: end a git am of ours that a killed run left in $WORKTREE,
# and restore the files of the patch it was applying; refuse an am that is
# not ours, another operation in progress (worktree_idle), and a marker
# whose run is alive.  Call it under worktree_lock.
am_clean_stale() {
	worktree_idle
	gd=$(wgit rev-parse --absolute-git-dir) && mk=$(am_marker) ||
		die "worktree: $WORKTREE: git cannot read it"
	if [ ! -f "$mk" ]; then
		[ ! -d "$gd/rebase-apply" ] ||
			die "worktree: a git am that the toolkit did not start is in progress in $WORKTREE: end it ('git -C $WORKTREE am --abort'), then run this again; nothing changed"
		return 0
	fi
	acs_pid='' acs_start='' acs_boot='' acs_what=''
	read -r acs_pid acs_start acs_boot acs_what <"$mk" 2>/dev/null || true
	! owner_alive "$acs_pid" "$acs_start" "$acs_boot" ||
		die "worktree: a run of the toolkit is applying patches in $WORKTREE: ${acs_what:-a git am}, pid $acs_pid: wait for it to end; nothing changed"
	progress worktree "cleaning up after an interrupted run ($(head -n 1 "$mk"))"
	acs_why=$(am_undo 2>&1) ||
		die "worktree: could not end the interrupted git am in $WORKTREE: $acs_why: run 'git -C $WORKTREE am --abort'"
	rm -f "$mk"
}

# The commit the series applies to.
base_commit() {
	bc=$(kgit rev-parse --verify -q "$REF_NS/base^{commit}") ||
		die "base: $REF_NS/base is not set in $(kernel_repo): run 'make kernel-tree' first"
	# KERNEL_BASE is honoured or refused, never ignored
	if [ -n "${KERNEL_BASE:-}" ]; then
		want=$(kgit rev-parse --verify -q "$KERNEL_BASE^{commit}") ||
			die "base: KERNEL_BASE='$KERNEL_BASE' is not a commit in $(kernel_repo)"
		[ "$want" = "$bc" ] ||
			die "base: KERNEL_BASE='$KERNEL_BASE' is $want, but $REF_NS/base is $bc: run 'make kernel-tree KERNEL_TREE=$KERNEL_TREE KERNEL_BASE=$KERNEL_BASE' to move the base"
	fi
	echo "$bc"
}

# commit_list [WORD...]: the one commit resolver of build, checks, bench,
# bench-vm and ci.  The commit ids of WORDs, one a line, in order; a WORD
# is "base" (the series' base), "head" (its last commit) or any git
# revision.  No WORD: the base and every series commit.  A tool whose
# default is shorter says it in words ("base head").  Use as
# commits=$(commit_list "$@") || exit 1
commit_list() {
	if [ $# = 0 ]; then
		cl_base=$(base_commit) || exit 1
		cl_head=$(commit_list head) || exit 1
		echo "$cl_base"
		kgit rev-list --reverse "$cl_base..$cl_head"
		return
	fi
	for cl_word in "$@"; do
		case $cl_word in
		base) base_commit || exit 1 ;;
		head)
			kgit rev-parse -q --verify "$REF_NS/series^{commit}" ||
				die "series: $REF_NS/series is not set in $(kernel_repo): run 'make apply' first, or name the commits"
			;;
		*)
			kgit rev-parse --verify -q "$cl_word^{commit}" ||
				die "commits: '$cl_word' is not a commit in $(kernel_repo)"
			;;
		esac
	done
}

# commit_subjects ID...: "ID<TAB>SUBJECT" a line, in the order given: the
# commits files ci-report, ci-merge and the results sets read
commit_subjects() {
	for cs_c; do
		cs_s=$(kgit log -1 --format=%s "$cs_c") || return 1
		printf '%s\t%s\n' "$cs_c" "$cs_s" || return 1
	done
}

# tree_of COMMIT: its tree id: what a build or a guest run of it is made
# of (a changelog edit gives a commit a new id and the same tree)
tree_of() {
	kgit rev-parse --verify -q "$1^{tree}" ||
		die "commits: '$1' has no tree in $(kernel_repo)"
}


# Fixed committer identity and date: re-applying gives the same commit ids.
committer_env() {
	GIT_COMMITTER_NAME=$PIN_IDENT_NAME
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL
	GIT_COMMITTER_DATE=$PIN_DATE
	export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
}

# import_tarball DIR TARBALL VERSION SHA256 DATE: extract Debian's
# $PIN_PACKAGE source tarball into a new repository at DIR and commit it
# as one commit with the fixed identity, DATE and message of the pin, so
# that the same tarball always gives the same commit id.  The one import
# for kernel-tree.sh (the pin) and repin.sh (TO_DEBIAN): a re-pin's commit
# is the one a fresh clone's 'make kernel-tree' makes from the new pin.
import_tarball() {
	dir=$1 tarball=$2 version=$3 sha=$4 date=$5
	progress import "extracting $tarball"
	mkdir -p "$dir"
	xz -dc -T0 "$tarball" | tar -x --no-same-owner --strip-components=1 -C "$dir" ||
		die "import: extracting '$tarball' failed (disk full? see the message above)"
	progress import "committing $(find "$dir" -type f | wc -l) files"
	git -C "$dir" init -q -b import
	# Debian's top-level .gitignore ignores everything: force the add.
	# Every blob over one byte goes straight into one pack, no delta
	# search (core.bigFileThreshold=1: git add's bulk checkin), instead
	# of 92k loose objects that a 'git gc --auto' packs again; gc.auto=0:
	# no gc started behind the import, racing the tests for the CPUs
	# (or, left loose, the first commit in a worktree of it).  zlib's
	# level 1, as for loose objects: level 6 costs the add 11 s more of
	# its ~25 s for a pack 16% smaller.  The trees and the commit, loose,
	# are packed too (repack -d: those alone), so the repository is
	# whole and packed before it is moved in place.
	git -C "$dir" -c core.bigFileThreshold=1 -c pack.compression=1 -c gc.auto=0 add -f -A .
	GIT_AUTHOR_NAME=$PIN_IDENT_NAME GIT_AUTHOR_EMAIL=$PIN_IDENT_EMAIL \
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_NAME=$PIN_IDENT_NAME \
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL GIT_COMMITTER_DATE=$date \
		git -C "$dir" -c gc.auto=0 commit -q --no-verify -m "Import $PIN_PACKAGE $version

Debian's $PIN_PACKAGE source ($PIN_TARBALL),
sha256 $sha, imported as one commit by x86-copy-series." &&
	git -C "$dir" repack -q -d
}
