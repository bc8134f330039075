# ci/ci.mk: the per-commit pipeline, its report, the regression gate and the
# merge of several hosts' results.  Included by the top-level Makefile.
#
#   make ci            every commit base..series: build, checks, bench-vm,
#                      bench; results in $(OUT)/ci/<commit>/, report in
#                      $(OUT)/ci/report.{md,json}, plots in $(OUT)/ci/plots
#   make ci-quick      base and head only, NS_SIZE=4G, REBINDS=5, bench --quick,
#                      in $(OUT)/quick: never in the full run's place
#   make report        the report again from the records in $(OUT)/ci
#                      (CI_QUICK=1: $(OUT)/quick)
#   make merge RESULTS='dir1 dir2 file.jsonl'  several hosts: one table by CPU
#                      (ci-merge), $(OUT)/merge/merge.{txt,md,json}
#
# A step whose inputs (commit, options, tools) did not change is skipped:
# $(OUT)/ci/<commit>/<step>.stamp holds the hash of its inputs.

# Every part of ci-report and ci-merge is its own object (ci/report.h
# lists them), over lib/ (LIB_OBJ, the top-level Makefile, which compiles
# and links them).
CI_OBJ = $(call objs,ci/gate.c ci/out-text.c ci/out-md.c ci/out-json.c ci/format.c \
	 ci/outputs.c ci/functions.c ci/predict.c ci/builds.c ci/summary.c)

C_TOOLS += $(BIN)/ci-report $(BIN)/ci-merge $(BIN)/ci-reproduce $(BIN)/claims-lint
$(BIN)/ci-report: $(call objs,ci/report-main.c ci/claims.c ci/plots.c) $(CI_OBJ) $(LIB_OBJ)
$(BIN)/ci-merge: $(call objs,ci/merge-main.c) $(CI_OBJ) $(LIB_OBJ)
$(BIN)/claims-lint: $(call objs,ci/claims-lint.c ci/claims.c) $(CI_OBJ) $(LIB_OBJ)
$(BIN)/ci-reproduce: $(call objs,ci/reproduce.c ci/reply.c) $(LIB_OBJ)

# Options of the pipeline (ci/run.sh reads them from the environment).
GATE_PCT ?= 5
# TCG with a wall clock: see ci/run.sh (between-boot drift of 10-18%
# measured here)
GATE_PCT_TCG ?= 25
# TCG with CLOCK=icount (the default under TCG): exact figures, no test
GATE_PCT_ICOUNT ?= 1
export CI_SET KCONFIG GUEST_MITIGATIONS GATE_PCT GATE_PCT_TCG GATE_PCT_ICOUNT GATE_ACK GATE_ONLY CI_COMMITS CI_STEPS CI_SCHEDULE CI_VM_JOBS NS_SIZE REBINDS CPU ACCEL CLOCK MODEL MODEL_ARGS BENCH_ARGS RESULTS MERGE_COMMITS CI_QUICK ID REPORT REPORT_OUT COVER REPLY_FILE

.PHONY: ci ci-quick plan report merge reproduce reply claims-lint ci-check-c

ci: tools
	$(Q)sh ci/run.sh

ci-quick: tools
	$(Q)CI_QUICK=1 sh ci/run.sh

# the steps make would run, why, and how long: nothing runs
plan: tools
	$(Q)CI_SET=$${CI_SET:-main} sh ci/run.sh --plan

# RESULTS=<set>: a committed set's report, into out/report/<set>
report: $(BIN)/ci-report
	$(Q)if [ -n "$$RESULTS" ]; then sh ci/report-set.sh "$$RESULTS"; else sh ci/run.sh --report-only; fi

# RESULTS is a list: its words (and what a pattern of them names) are the
# arguments, as the shell splits a value, never reads it as code
merge: $(BIN)/ci-merge
	$(Q)sh ci/merge.sh $$RESULTS

# BIN given on the command line (the tests, make coverage's instrumented
# tools): the caller's tools are used as they are, never rebuilt over with
# this make's flags (the scripts refuse a missing one by name)
ifeq ($(origin BIN),command line)
CI_REPRODUCE_DEP =
else
CI_REPRODUCE_DEP = $(BIN)/ci-reproduce
endif

# one claim's materials: make reproduce ID=series-icount/nd_pmem (the tools
# that made its records, not built anew: the script checks them)
reproduce: $(CI_REPRODUCE_DEP)
	$(Q)sh scripts/reproduce.sh "$$ID"

# a tester's reply to the cover letter, from the report's claims
reply: $(CI_REPRODUCE_DEP)
	$(Q)sh scripts/reply.sh

# every figure of the mails from its source (patches/figures): what make
# export and make send check
claims-lint: $(BIN)/claims-lint
	$(Q)"$$BIN/claims-lint"

ci-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f \
		ci/*.c ci/*.h

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
HELP += '  report         rebuild out/ci/report.{md,json} and plots from the records in out/ci'
HELP += '                 (CI_QUICK=1: those of make quick, in out/quick); RESULTS=<set>: a committed'
HELP += '                 set'"'"'s (results/<date-what>/<part>), into out/report/<set> (REPORT_OUT=)'
HELP += '  merge          RESULTS='"'"'dir file.jsonl ...'"'"': results of several hosts, one table by CPU'
HELP += '                 (out/merge; MERGE_COMMITS=FILE: the series'"'"' order, default this checkout'"'"'s)'
HELP += '  reproduce      ID=<claim id>: out/reproduce/<id>/ with reproduce.sh and metadata.json, the'
HELP += '                 claim'"'"'s kernels, tools and settings: its guest figures again, anywhere'
HELP += '                 (REPORT=out/ci/report.json; CI_QUICK=1: make quick'"'"'s)'
HELP += '  reply          a reply to the cover letter (out/reply/reply.mbox): per patch claimed vs'
HELP += '                 reproduced, the setups, the commands; Tested-by only if all held'
HELP += '  claims-lint    every figure of the mails from its source in patches/figures, as'
HELP += '                 computed (make export and make send refuse the series otherwise)'
HELP += '  ci-check-c     checkpatch.pl --strict on the ci C'
