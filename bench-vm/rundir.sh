# bench-vm/rundir.sh: the directories of a run, as run.sh uses them.
# Source it after scripts/lib.sh.
#
# A run writes into directories of its own and replaces the results it
# was asked for only at its end, so that the records and the logs of a
# results directory are always those of one run.  Every such directory
# has an owner file, .owner: the pid of the run, the process's start time
# and the boot, so that the next run can tell a live run from a dead one
# (a pid alone is given again to other processes).
#
#   run_dir_make PARENT NAME       (scripts/owner.sh) run_dir: a fresh
#                                  PARENT/NAME.XXXXXX owned by this shell
#   runs_clean PARENT 'GLOB' WHAT  (scripts/owner.sh) remove PARENT/GLOB
#                                  directories of runs no longer alive
#   run_busy PARENT 'GLOB'         the pid of a live run owning one, or false
#   put FILE <<EOF                 stdin into FILE, or die naming FILE (never
#                                  in a pipeline: die would end only that)
#   results_commit SRC DST         SRC's files replace the last run's in DST
#   PDEATH_PARENT=$$ setpriv --pdeathsig SIG sh "$PDEATH" CMD...
#                                  CMD gets SIG when this shell dies, SIGKILL
#                                  included (bench-vm/pdeath.sh)
# shellcheck disable=SC2034 # used by run.sh
PDEATH=$TOP/bench-vm/pdeath.sh

# the owner record of a run directory, run_dir_make, runs_clean
# (scripts/owner.sh)
# shellcheck source=../scripts/owner.sh
. "$TOP/scripts/owner.sh"

run_busy() {
	for d in "$1"/$2; do
		[ -d "$d" ] && run_alive "$d" && { cut -d' ' -f1 "$d/.owner"; return 0; }
	done
	return 1
}

put() {
	cat >"$1" || die "results: writing $1 failed (the reason is above: a full disk?): free space there, or write elsewhere"
}

# What run.sh wrote into a results directory before it listed its files
# in .bench-vm-files: the names results_commit removes when there is no
# list.
RUN_FILES_BEFORE='records.jsonl records.jsonl.tmp agent.out console.log qemu.log qemu-cmd.txt
initramfs.cpio initramfs.cpio.list initramfs.cpio.tmp collect.err watchdog.txt pages-build.log pages-module'

# results_commit SRC DST: SRC holds a run's files and .bench-vm-files,
# their names; they replace the files of the run before in DST (named by
# DST's .bench-vm-files), and nothing else of DST is touched (ci/run.sh
# keeps its own files there).  Renames only, in one filesystem: nothing
# to write, nothing that a full disk can stop.  The old records go
# first, the new ones last: a kill in between leaves DST without
# records, never with the records of one run beside the logs of another.
results_commit() {
	rm -f "$2/records.jsonl" || return 1
	if [ -f "$2/.bench-vm-files" ]; then
		old=$(cat "$2/.bench-vm-files") || return 1
	else
		old=$RUN_FILES_BEFORE
	fi
	for f in $old; do
		case $f in */* | . | ..) continue ;; esac
		rm -rf "${2:?}/$f" || return 1
	done
	mv -f "$1/.bench-vm-files" "$2/.bench-vm-files" || return 1
	for f in $(cat "$2/.bench-vm-files"); do
		case $f in */* | . | .. | records.jsonl) continue ;; esac
		[ -e "$1/$f" ] || continue
		rm -rf "${2:?}/$f" && mv "$1/$f" "$2/$f" || return 1
	done
	[ ! -e "$1/records.jsonl" ] || mv "$1/records.jsonl" "$2/records.jsonl" || return 1
	rm -rf "$1"
}
