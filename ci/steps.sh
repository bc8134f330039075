# ci/steps.sh: the steps of the CI pipeline (ci/run.sh), in their order.
# Each area owns its step, a file of one-commit functions beside its code;
# this file only lists them.  Sourced by run.sh, POSIX sh.
#
#   step_<name>_inputs COMMIT      print everything the result depends on
#                                  besides the code of run.sh (hashed into
#                                  the step's stamp), its own file too
#   step_<name>_run COMMIT DIR PARENT
#                                  run it; exit 0 done, 3 skipped (reason
#                                  in DIR/skipped), anything else failed
#   step_<name>_kind               (optional; the table below for a
#                                  constant) how the driver schedules it:
#                                  foreground (the default): in its place;
#                                  kernel: in its place, and it makes the
#                                  commit's kernel, so at most one guest
#                                  runs beside it and the commit's guest
#                                  is queued once it is done; guest: under
#                                  icount in a queue beside the others, on
#                                  a wall clock alone in its place (at
#                                  most one guest step); host-bench: real
#                                  time on the host, every commit's last,
#                                  alone
#   step_<name>_check              (optional) the variables the step
#                                  reads are ones it can run with: the
#                                  step's own program is asked, which runs
#                                  and writes nothing; else its usage error
#                                  on stderr, non-zero.  run.sh calls it
#                                  once for every step of the run before
#                                  anything is removed or any step starts
#   step_<name>_content COMMIT     (optional) what of the commit the
#                                  result is made of (its tree, its
#                                  parent's, its message): with the
#                                  inputs, the key under which another
#                                  commit id's results are reused
#   step_<name>_typical COMMIT I   (optional; or the table's) its seconds on this project's
#                                  machine, for the estimate when no
#                                  earlier run is known (default 60)
#   step_<name>_clock COMMIT DIR   (optional, guest) the guests' clock here
#   step_<name>_ran_clock DIR      (optional, guest) the clock the run
#                                  whose results are in DIR got: "ACCEL
#                                  CLOCK" (the schedule's answer when the
#                                  first hook could not tell)
#   step_<name>_footprint          (optional, guest) a guest's size and
#                                  memory: "ns_kb N host_kb N"
# For the step's view, make <name> (run.sh --view <name>):
#   step_<name>_needs              (optional; or the table's) the steps whose results it
#                                  needs, run before it (bench-vm: build)
#   step_<name>_commits            (optional; or the table's) its default revisions
#                                  (commit_list words: base head); else
#                                  every commit
#   step_<name>_report DIR...      (optional) its table, from each
#                                  commit's results directory, in order;
#                                  non-zero when it finds a failure
# Every step's producer writes its own records into DIR (its --results):
# nothing is read back, reshaped or copied here.  "<name>" is the step
# with '-' as '_'.  Helpers (ci/step-lib.sh): files_hash FILE... (inputs),
# scripts_of SCRIPT... (the files a script names, transitively: what an
# inputs function hashes of the toolkit), skip DIR WHY (exit 3 with the
# reason); and its n (the number of commits), CI_OUT, VM_NS_KB.

# shellcheck disable=SC2034 # read by ci/run.sh, which sources this file
CI_ALL_STEPS="build checks bench-vm bench"
# The steps' constants, a line each (ci/step-lib.sh: step_const): name;
# kind; the steps its view needs first; its view's default commits
# (commit_list words, ',' between); its typical seconds.  '-': none (the
# default: foreground, nothing, every commit, a minute).  A step's
# function of the same name (step_<name>_<field>) says it instead where
# it varies: bench's commits (no head before make apply), the typical
# seconds of build, checks and bench-vm (by commit).
# shellcheck disable=SC2034 # read by ci/step-lib.sh's step_const
CI_STEP_TABLE='
build    kernel     -     -         -
checks   foreground -     -         -
bench-vm guest      build base,head -
bench    host-bench -     -         25
'

# shellcheck source=../build/build-step.sh
. "$TOP/build/build-step.sh"
# shellcheck source=../checks/checks-step.sh
. "$TOP/checks/checks-step.sh"
# shellcheck source=../bench-vm/bench-vm-step.sh
. "$TOP/bench-vm/bench-vm-step.sh"
# shellcheck source=../bench/bench-step.sh
. "$TOP/bench/bench-step.sh"
