#!/bin/sh
# reproduce.sh: make reproduce ID=<claim id>: the materials that give one
# claim's guest figures again, on any Debian 12 with QEMU, as LKP's
# "materials to reproduce" and TuxMake's reproducer do.
#
#   reproduce.sh ID      a claim of lib/claims.def (the ids: ci-reproduce
#                        lists them when ID is none of them)
#
# It reads the claim from REPORT (default $CI_OUT/report.json; CI_OUT is
# out/ci, or out/quick with CI_QUICK=1) and writes REPRO_DIR (default
# $OUT/reproduce/<ID, '/' as '_'>):
#   reproduce.sh         the reproducer (review/reproduce-claim.sh): boots
#                        each side's kernel as the records' run did and
#                        compares the samples, exact under icount
#   metadata.json        the claim, its commits and tree ids, the kernels'
#                        config and bzImage sha256, QEMU version, -cpu,
#                        sizes, rebinds, clock, the commands, the samples
#                        expected (ci-reproduce metadata)
#   kernels/ bin/ bench-vm/ scripts/   what the run needs: the bzImages and
#                        configs, the agent and the tools, run.sh and the
#                        files it names (those the step's inputs hash),
#                        each checked against the inputs that made the
#                        records (out/ci/<commit>/bench-vm/inputs)
#   SHA256SUMS           of all of them, checked by reproduce.sh
# Only a guest (bench-vm) claim has such materials; a host one (bench) is
# refused with what reruns it.  Nothing is written unless everything is
# there and current: the directory is made aside and renamed in whole.
# Exit: 0; 1 an error; 2 usage or an unknown claim.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
PROG=reproduce

[ $# = 1 ] && [ -n "$1" ] || usage_die "make reproduce ID=<claim id> (e.g. ID=series-icount/nd_pmem; REPORT=, CI_QUICK=1)"
ID=$1
if [ "${CI_QUICK:-}" = 1 ]; then CI_OUT=${CI_OUT:-$OUT/quick}; else CI_OUT=${CI_OUT:-$OUT/ci}; fi
REPORT=$(report_of "${REPORT:-$CI_OUT/report.json}") || exit
tool_built ci-reproduce
REPRO_DIR=${REPRO_DIR:-$OUT/reproduce/$(printf '%s' "$ID" | tr '/' '_')}

# the claim's sides: "from COMMIT CASE", "to COMMIT CASE" (errors: the tool's)
claim=$("$BIN/ci-reproduce" claim "$REPORT" "$ID") || exit $?
side() {
	printf '%s\n' "$claim" | awk -v k="$1" -v f="$2" '$1 == k { print $f }'
}
from=$(side from 2) to=$(side to 2)
# a report of a committed set (make report RESULTS=): its records came
# without the kernels and inputs that made them; the reproducer needs a
# run's.  Said before anything is staged, with the way in.
set_file=$(dirname "$REPORT")/set
if [ -f "$set_file" ] && [ ! -f "$CI_OUT/$to/bench-vm/inputs" ]; then
	die "report: $REPORT is the report of the committed set $(cat "$set_file"): a set keeps records, not the kernels and inputs that made them. The way in: check out the series the set measured (its commits.txt), run 'make ci' (it builds and measures those commits into $CI_OUT), then 'make reproduce ID=$ID'; or compare the set's figures with 'make report RESULTS=$(cat "$set_file")'"
fi
tool_built bench-vm-agent bench-vm-collect gen_init_cpio

# a new directory beside REPRO_DIR (mktemp -d: a name nothing had, no
# link of a predictable name followed), with the mode mkdir gives
stage=
cleanup() { [ -z "$stage" ] || rm -rf "$stage"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mkdir -p "$(dirname "$REPRO_DIR")" || die "output: cannot create $(dirname "$REPRO_DIR")"
# owned (.owner), so that the next run removes what a killed one left
stage_make "$(dirname "$REPRO_DIR")" ".$(basename "$REPRO_DIR")" "the stage of a reproducer"
stage=$run_dir
chmod "$(printf %o $((0777 & ~$(umask))))" "$stage" &&
	mkdir -p "$stage/kernels" "$stage/bin" "$stage/bench-vm" "$stage/scripts" ||
	die "output: cannot create ${stage:-a directory beside $REPRO_DIR}"

# check_inputs COMMIT: every file hashed in the step's inputs is as it was
# when the records were made; the materials are copied from those files
check_inputs() {
	in=$CI_OUT/$1/bench-vm/inputs
	[ -f "$in" ] || die "inputs: $in is missing: make ci's bench-vm step of $1 writes it"
	awk 'length($1) == 64 && $1 ~ /^[0-9a-f]+$/ { print $1 "  " $2 }' "$in" >"$stage/inputs.sums"
	[ -s "$stage/inputs.sums" ] || die "inputs: $in hashes no files: not this toolkit's (rerun make ci)"
	(cd "$TOP" && sha256sum -c --quiet "$stage/inputs.sums") >"$stage/check.out" 2>&1 ||
		die "inputs: $(sed -n 's/: FAILED.*//p' "$stage/check.out" | head -n 3 | tr '\n' ' ')changed since the records of $1 were made ($in): run make ci (or make report's commits again) first, so that the reproducer carries what made them"
}

for c in $from $to; do
	check_inputs "$c"
	b=$OUT/build/$c k=$stage/kernels/$c
	# as the build lays them out: run.sh finds System.map and the build's
	# identity (build-id.json, named in every record) beside the image
	mkdir -p "$k/arch/x86/boot" && cp "$b/arch/x86/boot/bzImage" "$k/arch/x86/boot/" &&
		cp "$b/.config" "$k/config" && cp "$b/System.map" "$b/build-id.json" "$k/" ||
		die "kernels: cannot copy $b's bzImage, .config, System.map and build-id.json into $stage"
done
cp "$BIN/bench-vm-agent" "$BIN/bench-vm-collect" "$BIN/gen_init_cpio" "$BIN/ci-reproduce" "$stage/bin/" &&
	cp "$TOP/review/reproduce-claim.sh" "$stage/reproduce.sh" ||
	die "materials: cannot copy the tools into $stage"
# the toolkit's files of the run: those its inputs hash (what run.sh
# names, found from it: ci/run.sh scripts_of), and the ones inputs made
# before that did not list (lib.sh's pin.conf and owner.sh)
for p in $(awk 'length($1) == 64 && $2 !~ "^/" { print $2 }' "$CI_OUT/$to/bench-vm/inputs") \
	bench-vm/run.sh bench-vm/run-options.sh bench-vm/guest.sh bench-vm/rundir.sh \
	bench-vm/initramfs.sh bench-vm/pdeath.sh \
	scripts/lib.sh scripts/lib-git.sh scripts/lib-lock.sh scripts/lib-build.sh \
	series/pin.conf scripts/owner.sh; do
	case $TOP/$p in "$OUT"/*) continue ;; esac
	mkdir -p "$stage/$(dirname "$p")" && cp "$TOP/$p" "$stage/$p" ||
		die "materials: cannot copy $p into $stage"
done
# the model plugin, by its content as the inputs name it ("model auto SHA")
model_sha=$(awk '$1 == "model" && $2 != "none" { print $NF }' "$CI_OUT/$to/bench-vm/inputs")
if [ -n "$model_sha" ]; then
	[ "$(sha256sum <"$BIN/bench-vm-model.so" | cut -d' ' -f1)" = "$model_sha" ] ||
		die "inputs: $BIN/bench-vm-model.so changed since the records of $to were made: run make ci first"
	cp "$BIN/bench-vm-model.so" "$stage/bin/" || die "materials: cannot copy the model plugin"
fi

sha() { sha256sum <"$1" | cut -d' ' -f1; }
# the materials metadata.json names: KEY=VALUE arguments, a value may
# have blanks (the QEMU command line of the records' run)
set -- "toolkit_commit=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)" \
	"command=sh reproduce.sh"
for r in from to; do
	c=$(side "$r" 2) k=kernels/$(side "$r" 2)
	set -- "$@" "$r.tree=$(tree_of "$c")" "$r.config_sha256=$(sha "$stage/$k/config")" \
		"$r.bzimage=$k/arch/x86/boot/bzImage" \
		"$r.bzimage_sha256=$(sha "$stage/$k/arch/x86/boot/bzImage")"
	q=$CI_OUT/$c/bench-vm/qemu-cmd.txt
	[ ! -f "$q" ] || set -- "$@" "$r.qemu_command=$(cat "$q")"
done
"$BIN/ci-reproduce" metadata "$REPORT" "$ID" "$CI_OUT" "$@" >"$stage/metadata.json" ||
	die "metadata: ci-reproduce failed (above)"
(cd "$stage" && find . -type f ! -name "SHA256SUMS*" ! -name inputs.sums ! -name check.out ! -path ./.owner |
	LC_ALL=C sort | xargs sha256sum) >"$stage/SHA256SUMS.tmp" &&
	mv "$stage/SHA256SUMS.tmp" "$stage/SHA256SUMS" && rm -f "$stage/inputs.sums" "$stage/check.out" ||
	die "output: cannot write $stage/SHA256SUMS"

# in whole: the old directory goes only when the new one is complete
old=
if [ -e "$REPRO_DIR" ] || [ -L "$REPRO_DIR" ]; then
	old=$stage.old
	mv -T "$REPRO_DIR" "$old" || die "output: cannot move the old $REPRO_DIR aside"
fi
rm -f "$stage/.owner"
mv -T "$stage" "$REPRO_DIR" || { [ -z "$old" ] || mv "$old" "$REPRO_DIR"; die "output: cannot rename $stage to $REPRO_DIR"; }
[ -z "$old" ] || rm -rf "$old"
trap - EXIT
progress write "$REPRO_DIR: reproduce.sh, metadata.json and the materials of $ID ($(du -sh "$REPRO_DIR" | cut -f1))"
printf '%s\n' "$REPRO_DIR" "  sh $REPRO_DIR/reproduce.sh      # boots $(printf '%s\n' "$from" "$to" | sort -u | wc -l) kernel(s) as the records' run did"
