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
#   run_dir_make PARENT NAME       run_dir: a fresh PARENT/NAME.XXXXXX owned
#                                  by this shell (mode 0700, as mktemp makes it)
#   runs_clean PARENT 'GLOB' WHAT  remove PARENT/GLOB directories of runs
#                                  that are no longer alive, each said
#   run_busy PARENT 'GLOB'         the pid of a live run owning one, or false
#   put FILE <<EOF                 stdin into FILE, or die naming FILE (never
#                                  in a pipeline: die would end only that)
#   results_commit SRC DST         SRC's files replace the last run's in DST
#   PDEATH_PARENT=$$ setpriv --pdeathsig SIG sh "$PDEATH" CMD...
#                                  CMD gets SIG when this shell dies, SIGKILL
#                                  included (bench-vm/pdeath.sh)
# shellcheck disable=SC2034 # used by run.sh
PDEATH=$TOP/bench-vm/pdeath.sh

# the owner record of a run directory (scripts/owner.sh)
# shellcheck source=../scripts/owner.sh
. "$TOP/scripts/owner.sh"

# run_alive DIR: DIR's owner is alive (same pid, start time and boot)
run_alive() {
	[ -f "$1/.owner" ] || return 1
	read -r pid start boot 2>/dev/null <"$1/.owner" || return 1
	owner_alive "$pid" "$start" "$boot"
}

# dir_in_use DIR: a running process names DIR/ in its command line (a
# QEMU of the run: its NVDIMM and output paths).  awk takes DIR from its
# environment, so that its own command line does not name it.
dir_in_use() {
	cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' |
		D="$1/" awk 'index($0, ENVIRON["D"]) { found = 1 } END { exit !found }'
}

run_dir_make() {
	run_dir=$(mktemp -d "$1/$2.XXXXXX") || die "run: cannot create a directory in $1"
	proc_owner | cat >"$run_dir/.owner" || {
		rm -rf "$run_dir"
		die "run: writing $run_dir/.owner failed (the reason is above: a full disk?): free space there"
	}
}

# runs_clean PARENT GLOB WHAT: a directory without an owner file was made
# by an older run.sh, or is being made right now: it goes only when
# nothing running names it and it has not changed for 10 minutes.
runs_clean() {
	for d in "$1"/$2; do
		[ -d "$d" ] || continue
		if [ -f "$d/.owner" ]; then
			run_alive "$d" && continue
			who="run $(cut -d' ' -f1 "$d/.owner" 2>/dev/null), no longer alive"
		else
			[ -z "$(find "$d" -maxdepth 0 -mmin -10)" ] && ! dir_in_use "$d" || continue
			who="no owner file, nothing running names it"
		fi
		rm -rf "$d" || die "run: cannot remove $d ($3 of a run that is no longer alive)"
		progress "${label:-run}" "removed $d: $3 of a dead run ($who)"
	done
}

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
