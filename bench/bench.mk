# bench/bench.mk: host microbenchmarks that reproduce the copy changelogs'
# numbers with the tree's own code.  Included by the top-level Makefile.
#
#   make bench                  the default suite on the base and the series head
#   make bench COMMITS='a b'    other commits (any rev)
#   make bench-diffs SPECS=...  trees with diffs (REV+file.diff)
#   make bench-list             the variant and experiment tables
#
# copy-bench is commit-independent; bench/gen.sh builds each commit's
# routines into $(OUT)/bench/<commit>/variants.so, which it loads.

BENCH_SRC = bench/copy-bench.c bench/experiments.c bench/selftest.c \
	    bench/costs.c lib/stats.c bench/ntstore.S bench/costs.S lib/record-write.c

C_TOOLS += $(BIN)/copy-bench $(BIN)/cost-fit
$(BIN)/copy-bench: $(call objs,$(BENCH_SRC))
# the cost table's fit: the host times of cost-classes on the model's counts
$(BIN)/cost-fit: $(call objs,bench/cost-fit.c) $(LIB_OBJ)

.PHONY: bench bench-diffs bench-list costs

# A view of the pipeline (ci/run.sh --view): the bench step on COMMITS
# (default: the base and the series head), with make ci's stamps.
bench: tools
	$(Q)CI_COMMITS="$$COMMITS" sh ci/run.sh --view bench

# Not commits: trees with diffs applied (SPECS='base base+a.diff+b.diff';
# default, the base and the base with bench/seed-diffs), which the
# pipeline does not key: bench/run.sh measures each in a run directory of
# its own, $(OUT)/bench/run-<time>.
export SPECS
bench-diffs: $(BIN)/copy-bench
	$(Q)COMMITS="$$SPECS" sh bench/run.sh

# this CPU's cost table and its check (bench/costs.sh; lib/costs.h)
costs: $(BIN)/copy-bench $(BIN)/cost-fit $(BIN)/bench-vm-model.so
	$(Q)sh bench/costs.sh

bench-list: $(BIN)/copy-bench
	$(Q)"$$BIN/copy-bench" --list

HELP += '  bench          reproduce the changelogs'"'"' copy figures on this CPU (COMMITS=..., BENCH_ARGS=...)'
HELP += '  bench-diffs    the same on trees with diffs (SPECS="base base+x.diff"; default: the seed diffs)'
HELP += '  costs          this CPU'"'"'s cost table from the host kernels and the model'"'"'s counts, checked (COST_PAGES=..., COST_ROUNDS=10: interleaved rounds)'
HELP += '  bench-list     the bench'"'"'s variant and experiment tables'

.PHONY: bench-check-c
# claims.def is an X-macro table: each user takes the columns it needs
bench-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q --ignore MACRO_ARG_UNUSED -f \
		bench/*.c bench/*.h bench/kernel/*.c bench/kernel/*.h
HELP += '  bench-check-c  checkpatch.pl --strict on the bench C'
