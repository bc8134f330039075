# ci/ci.mk: the per-commit pipeline (ci/run.sh, the driver): every
# step on every commit, then the report (report/report.mk) and the gate.
# Included by the top-level Makefile.
#
#   make ci            every commit base..series: build, checks, bench-vm,
#                      bench; results in $(OUT)/ci/<commit>/, report in
#                      $(OUT)/ci/report.{md,json}, plots in $(OUT)/ci/plots
#   make ci-quick      base and head only, NS_SIZE=4G, REBINDS=5, bench --quick,
#                      in $(OUT)/quick: never in the full run's place
#   make plan          what make ci would run, why, and how long
#
# A step whose inputs (commit, options, tools) did not change is skipped:
# $(OUT)/ci/<commit>/<step>.stamp holds the hash of its inputs.

# Options of the pipeline (ci/run.sh reads them from the environment).
# Their defaults are where they are read, once: the gate's (GATE_PCT,
# GATE_PCT_TCG, GATE_PCT_ICOUNT) in report/report-lib.sh, the guest's in
# bench-vm/defaults.sh.  make passes a variable set on its command line
# or in the environment to the recipes as it is (an empty one too, which
# the reader refuses); one set nowhere stays unset.
export CI_SET KCONFIG GUEST_MITIGATIONS GATE_ACK GATE_ONLY CI_COMMITS CI_STEPS CI_SCHEDULE CI_VM_JOBS NS_SIZE REBINDS CPU ACCEL CLOCK MODEL MODEL_ARGS BENCH_ARGS RESULTS MERGE_COMMITS CI_QUICK ID REPORT REPORT_OUT COVER REPLY_FILE

.PHONY: ci ci-quick plan ci-check-c

ci: tools
	$(Q)sh ci/run.sh

ci-quick: tools
	$(Q)CI_QUICK=1 sh ci/run.sh

# the steps make would run, why, and how long: nothing runs
plan: tools
	$(Q)CI_SET=$${CI_SET:-main} sh ci/run.sh --plan

# the C that lived in ci/ before the report, the reviewer's tools and
# claims-lint got their own directories
ci-check-c: report-check-c review-check-c series-check-c

HELP += '  plan           what make would run, and why, and about how long; runs nothing'
HELP += '                 (CI_SET=full: make ci'"'"'s; COMMITS= as the pipeline takes them)'
HELP += '  ci             every commit: build, checks, bench-vm, bench; report + gate (GATE_PCT=5,'
HELP += '                 GATE_PCT_TCG=25 for TCG wall clock, GATE_PCT_ICOUNT=1 for CLOCK=icount, the'
HELP += '                 default under TCG; accepted changes: ci/gate-ack.txt)'
HELP += '                 results in out/ci/<commit>/, report out/ci/report.md; reruns skip unchanged steps'
HELP += '                 CI_SCHEDULE=overlap (icount guests beside the builds, host bench last) or serial'
HELP += '                 CI_VM_JOBS=2 (icount guests at once when no build runs and memory holds them)'
HELP += '                 MODEL=auto (bench-vm'"'"'s cache model in each icount guest: 4-5x its time at'
HELP += '                 100G; the default of ci-quick only), cache, none'
HELP += '  ci-quick       ci on base and head only, NS_SIZE=4G, REBINDS=5, bench --quick, in out/quick'
HELP += '  ci-check-c     checkpatch.pl --strict on the C of report/, review/ and series/'
