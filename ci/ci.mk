# ci/ci.mk: the per-commit pipeline, its report, the regression gate and the
# merge of several hosts' results.  Included by the top-level Makefile.
#
#   make ci            every commit base..series: build, checks, bench-vm,
#                      bench; results in $(OUT)/ci/<commit>/, report in
#                      $(OUT)/ci/report.{md,json}, plots in $(OUT)/ci/plots
#   make ci-quick      base and head only, NS_SIZE=4G, REBINDS=5, bench --quick
#   make report        the report again from the records in $(OUT)/ci
#   make merge RESULTS='dir1 dir2 file.jsonl'  several hosts: one table by CPU
#
# A step whose inputs (commit, options, tools) did not change is skipped:
# $(OUT)/ci/<commit>/<step>.stamp holds the hash of its inputs.

CI_SRC = ci/report.c lib/record-read.c lib/util.c lib/stats.c
CI_DEPS = $(CI_SRC) lib/record-read.h lib/util.h lib/stats.h ci/claims.def bench/claims.def \
	lib/record-write.h
CI_LIBS = -ljson-c -lgsl -lgslcblas -lm

TOOLS += $(BIN)/ci-report $(BIN)/ci-record

$(BIN)/ci-report: $(CI_DEPS) $(OUT)/cflags
	@mkdir -p $(@D)
	$(quiet) '  CC     ' $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(CI_SRC) $(CI_LIBS)

$(BIN)/ci-record: ci/record-cli.c $(LIB_RECORD) $(OUT)/cflags
	@mkdir -p $(@D)
	$(quiet) '  CC     ' $@
	$(Q)$(CC) $(CFLAGS) -o $@ ci/record-cli.c lib/record-write.c -ljson-c

# Options of the pipeline (ci/run.sh reads them from the environment).
GATE_PCT ?= 5
# TCG with a wall clock: see ci/run.sh (between-boot drift of 10-18%
# measured here)
GATE_PCT_TCG ?= 25
# TCG with CLOCK=icount (the default under TCG): exact figures, no test
GATE_PCT_ICOUNT ?= 1
export GATE_PCT GATE_PCT_TCG GATE_PCT_ICOUNT GATE_ACK GATE_ONLY CI_COMMITS CI_STEPS NS_SIZE REBINDS CPU ACCEL CLOCK BENCH_ARGS RESULTS

.PHONY: ci ci-quick report merge ci-check-c

ci: tools
	$(Q)sh ci/run.sh

ci-quick: tools
	$(Q)CI_QUICK=1 sh ci/run.sh

report: $(BIN)/ci-report
	$(Q)sh ci/run.sh --report-only

merge: $(BIN)/ci-report
	$(Q)sh ci/merge.sh $(RESULTS)

ci-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f \
		ci/*.c ci/*.h

HELP += '  ci             every commit: build, checks, bench-vm, bench; report + gate (GATE_PCT=5,'
HELP += '                 GATE_PCT_TCG=25 for TCG wall clock, GATE_PCT_ICOUNT=1 for CLOCK=icount, the'
HELP += '                 default under TCG; accepted changes: ci/gate-ack.txt)'
HELP += '                 results in out/ci/<commit>/, report out/ci/report.md; reruns skip unchanged steps'
HELP += '  ci-quick       ci on base and head only, NS_SIZE=4G, REBINDS=5, bench --quick'
HELP += '  report         rebuild out/ci/report.{md,json} and plots from the records in out/ci'
HELP += '  merge          RESULTS='"'"'dir file.jsonl ...'"'"': results of several hosts, one table by CPU'
HELP += '  ci-check-c     checkpatch.pl --strict on the ci C'
