#!/bin/sh
# make export: patches/ regenerated from the series commits; applying the
# export gives identical commits (round trip); the committed patches/ is
# what export writes (a fixpoint); VERSION=N numbers [PATCH vN k/N].
. "$(dirname "$0")/lib.sh"
[ -x "$BIN/series-check" ] || bail "tools are not built: run 'make tools'"
HEAD=$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series") || bail "no series: t0030 applies it"
plan 3

test_expect_success 'export, then apply the export: the same commit ids' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/scripts/export.sh" &&
	"$BIN/series-check" p/series &&
	PATCHES=$SCRATCH/p SERIES_REF=$REF_NS/roundtrip sh "$TOP/scripts/apply.sh" &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/roundtrip")" = "$HEAD" ] &&
	git -C "$WORKTREE" update-ref -d "$REF_NS/roundtrip" &&
	git -C "$WORKTREE" checkout -q --detach "$HEAD"
'

test_expect_success 'the committed patches/ is exactly what export writes' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/scripts/export.sh" &&
	diff -r -x upstream "$TOP/patches" p
'

test_expect_success 'VERSION=2: [PATCH v2 k/N], stable v2 Message-Ids, carried patches keep theirs' '
	VERSION=2 PATCHES_OUT=$SCRATCH/p sh "$TOP/scripts/export.sh" &&
	grep -q "^Subject: \[PATCH v2 0/[0-9]*\]" p/0000-cover-letter.mbox &&
	grep -q "^Message-Id: <x86-copy-series-v2-0@example.org>" p/0000-cover-letter.mbox &&
	grep -l "^Subject: \[PATCH v2 1/" p/0001-*.mbox &&
	grep -q "^Message-Id: <x86-copy-series-v2-1@example.org>" p/0001-*.mbox &&
	grep -q "^Message-Id: <20261013100442.2658311-1-usama.arif@linux.dev>" p/*REP-MOVSB*.mbox &&
	grep -q "^In-Reply-To: <x86-copy-series-v2-0@example.org>" p/*REP-MOVSB*.mbox &&
	grep -q "^base-commit: $(git -C "$WORKTREE" rev-parse "$REF_NS/base")" p/0000-cover-letter.mbox
'
done_testing
