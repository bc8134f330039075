#!/bin/sh
# kunit.sh: the kernel's memcpy (lib/memcpy_kunit.c) and usercopy
# (lib/usercopy_kunit.c) KUnit suites in QEMU, under each CPU variant of
# the KUNIT_CPUS table, for the given commits (default: the base and the
# series head).
#
#   kunit.sh [COMMIT...]
#
# KUNIT_SUITES='memcpy usercopy' and KUNIT_VARIANTS (names of KUNIT_CPUS)
# choose a subset.
#
# Each commit's kernel (tinyconfig + checks/kunit.config, ccache) is
# built once in out/checks/kunit/<commit>
# and booted by the tree's own tools/testing/kunit/kunit.py exec under
# every variant.  Results: out/checks/kunit/<commit>/<variant>.{log,json},
# records.jsonl (one record per test case and variant).  Exit 1 when a
# test fails on a commit where it passes on the base, or when a run gives
# no results (build failure, crash, timeout).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
PROG=kunit

# QEMU -cpu variants, one line each: name, -cpu value, what it exercises.
# A variant whose features QEMU's TCG drops (fsrm, in QEMU 7.2) is skipped
# with a record that says so (tcg_drops below), never run as another CPU.
KUNIT_CPUS='
erms        max               ERMS without FSRM: memcpy_orig below 512 B, REP MOVSB above
fsrm        max,+fsrm         ERMS and FSRM: REP MOVSB for all sizes
noerms      max,-erms         neither: memcpy_orig for all sizes
fsrm-noerms max,-erms,+fsrm   FSRM without ERMS
'
KUNIT_SUITES=${KUNIT_SUITES:-memcpy usercopy}
# KUNIT_VARIANTS='erms fsrm': only these lines of KUNIT_CPUS (default all)
KUNIT_VARIANTS=${KUNIT_VARIANTS:-}
for v in $KUNIT_VARIANTS; do
	printf '%s\n' "$KUNIT_CPUS" | awk -v v="$v" '$1 == v { f = 1 } END { exit !f }' ||
		usage_die "KUNIT_VARIANTS: '$v' is not a variant of KUNIT_CPUS ($(printf '%s\n' "$KUNIT_CPUS" | awk 'NF { printf "%s ", $1 }'))"
done
KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-300}

CDIR=$OUT/checks
CT=${CHECKS_TREE:-$CDIR/tree}
KFRAG=$TOP/checks/kunit.config
JOBS=${JOBS:-$(nproc)}
command -v qemu-system-x86_64 >/dev/null || die "qemu: qemu-system-x86_64 is not installed: run 'make deps'"
command -v python3 >/dev/null || die "python3: not installed (kunit.py needs it): run 'make deps'"
[ -x "$BIN/checks-record" ] || die "tools: $BIN/checks-record is missing: run 'make tools'"
[ -e "$CT/.git" ] || die "setup: no checks worktree $CT: run 'make checks' first"
[ -z "$(git -C "$CT" status --porcelain --untracked-files=no)" ] ||
	die "setup: $CT has local changes: discard them (git -C $CT checkout -f)"

# per-commit build directories from one worktree: as in scripts/build.sh,
# the directory stays out of ccache's hash so unchanged files hit
CCACHE_NOHASHDIR=1
export CCACHE_NOHASHDIR

base=$(base_commit)
# default: the base and the series head only
commits=$(commit_list "$@") || exit 1
[ $# -gt 0 ] || commits=$(printf '%s\n' "$commits" | sed -n '1p;$p' | uniq)

# build COMMIT: the KUnit kernel in out/checks/kunit/<commit>, once
build() {
	c=$1 o=$CDIR/kunit/$1
	stamp="$c $(sha256sum <"$KFRAG" | cut -d' ' -f1)"
	if [ -f "$o/stamp" ] && [ "$(cat "$o/stamp")" = "$stamp" ] &&
	   [ -f "$o/arch/x86/boot/bzImage" ]; then
		progress "kunit $(printf %.12s "$c")" "kernel up to date: $o"
		return 0
	fi
	git -C "$CT" checkout -q --detach "$c" || die "checkout: cannot check out $c in $CT"
	rm -rf "$o" && mkdir -p "$o"
	progress "kunit $(printf %.12s "$c")" "building the KUnit kernel (log: $o/build.log)"
	kconfig_fragment "$CT" "$o" "$KFRAG" >"$o/build.log" 2>&1 || {
		tail -n 20 "$o/build.log" >&2
		return 1
	}
	make -C "$CT" O="$o" -j"$JOBS" CC="ccache gcc" bzImage >>"$o/build.log" 2>&1 || {
		tail -n 20 "$o/build.log" >&2
		return 1
	}
	echo "$stamp" >"$o/stamp"
}

# tcg_drops CPU: QEMU's warning when its TCG (what kunit.py's QEMU runs)
# silently leaves out a feature CPU asks for: QEMU 7.2 has no FSRM, so
# max,+fsrm boots as plain max and the variant would measure nothing new.
tcg_drops() {
	echo quit | timeout 30 qemu-system-x86_64 -machine pc -accel tcg -cpu "$1" \
		-nodefaults -display none -monitor stdio -S 2>&1 |
		grep -o "TCG doesn't support requested feature: [^ ]*" | head -n 1
}

# kunit.py's JSON (KernelCI format) -> checks-record lines
to_tsv() {
	python3 -c '
import json, sys
variant, cpu = sys.argv[1], sys.argv[2]
def walk(g, path):
	for t in g.get("test_cases", []):
		st = t.get("status", "")
		ok = 1 if st in ("PASS", "SKIP") else 0
		print("kunit/%s/%s\tkunit\tpass\t%d\tstatus=%s\tcpu_variant=%s\tqemu_cpu=%s" %
		      ("/".join(path), t["name"], ok, st, variant, cpu))
	for s in g.get("sub_groups", []):
		walk(s, path + [s["name"]])
walk(json.load(open(sys.argv[3])), [])
' "$@"
}

failed=0
for c in $commits; do
	short=$(printf %.12s "$c")
	o=$CDIR/kunit/$c
	start=$(date +%s)
	if ! build "$c"; then
		warn "$short: the KUnit kernel does not build (log: $o/build.log)"
		printf 'kunit/build\terror\tcount\t1\terror=the KUnit kernel does not build: %s\n' \
			"$o/build.log" | "$BIN/checks-record" "$c" >"$o/records.jsonl" ||
			die_rc $? "records: checks-record failed for $short"
		failed=$((failed + 1))
		continue
	fi
	progress "kunit $short" "kernel ready in $(( $(date +%s) - start ))s"
	: >"$o/records.tsv"
	while read -r name cpu what; do
		[ -n "$name" ] || continue
		case " ${KUNIT_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
		dropped=$(tcg_drops "$cpu")
		if [ -n "$dropped" ]; then
			warn "$short: variant $name (-cpu $cpu) skipped: QEMU: $dropped"
			printf 'kunit/variant/%s\tskipped\tcount\t1\tcpu_variant=%s\treason=QEMU: %s\n' \
				"$name" "$name" "$dropped" >>"$o/records.tsv"
			continue
		fi
		for s in $KUNIT_SUITES; do
			progress "kunit $short" "$s under -cpu $cpu ($what)"
			rc=0
			# exec boots the kernel built above; it never rebuilds it
			python3 "$CT/tools/testing/kunit/kunit.py" exec --arch=x86_64 \
				--build_dir="$o" --timeout="$KUNIT_TIMEOUT" \
				--qemu_args="-cpu $cpu" --json="$o/$name-$s.json" "$s" \
				>"$o/$name-$s.log" 2>&1 || rc=$?
			if [ ! -s "$o/$name-$s.json" ] || ! to_tsv "$name" "$cpu" "$o/$name-$s.json" >"$o/$name-$s.tsv"; then
				warn "$short: $s under -cpu $cpu gave no results (exit $rc, log: $o/$name-$s.log)"
				printf 'kunit/%s\terror\tcount\t1\tcpu_variant=%s\terror=no results (exit %s): %s\n' \
					"$s" "$name" "$rc" "$o/$name-$s.log" >>"$o/records.tsv"
				failed=$((failed + 1))
				continue
			fi
			[ -s "$o/$name-$s.tsv" ] || {
				warn "$short: $s under -cpu $cpu ran no test case (log: $o/$name-$s.log)"
				failed=$((failed + 1))
			}
			cat "$o/$name-$s.tsv" >>"$o/records.tsv"
			progress "kunit $short" "$s -cpu $cpu: $(awk -F'\t' '$4 == 1' "$o/$name-$s.tsv" | wc -l) passed, $(awk -F'\t' '$4 == 0' "$o/$name-$s.tsv" | wc -l) failed"
		done
	done <<EOT
$KUNIT_CPUS
EOT
	"$BIN/checks-record" "$c" <"$o/records.tsv" >"$o/records.jsonl" ||
		die_rc $? "records: checks-record failed for $short"
	# failures new against the base (same case, same variant)
	awk -F'\t' '$4 == 0 { print $1 " " $6 }' "$o/records.tsv" | sort >"$o/failures.txt"
	if [ "$c" != "$base" ]; then
		bf=$CDIR/kunit/$base/failures.txt
		if [ -f "$bf" ]; then
			comm -13 "$bf" "$o/failures.txt" >"$o/new-failures.txt"
		else
			cp "$o/failures.txt" "$o/new-failures.txt"
		fi
		if [ -s "$o/new-failures.txt" ]; then
			warn "$short: KUnit failures new against the base:"
			sed 's/^/  /' "$o/new-failures.txt" >&2
			failed=$((failed + 1))
		fi
	fi
	progress "kunit $short" "done in $(( $(date +%s) - start ))s: $(awk -F'\t' '$2 == "kunit"' "$o/records.tsv" | wc -l) results, $(wc -l <"$o/failures.txt") failure(s)"
done
[ $failed = 0 ] || die "verdict: $failed KUnit problem(s), see the warnings above"
