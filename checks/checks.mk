# checks: the kernel's checkers (checkpatch, sparse, coccinelle, clang),
# our changelog lint and semantic patches, and KUnit, on every series
# commit, reporting only what a commit adds.  Included by the top-level
# Makefile.

C_TOOLS += $(BIN)/changelog-lint $(BIN)/kunit-records
$(BIN)/changelog-lint: $(call objs,checks/changelog-lint.c lib/mbox.c)
# kunit.py's JSON -> records (checks/kunit.sh)
$(BIN)/kunit-records: $(call objs,checks/kunit-records.c lib/record-write.c)

.PHONY: checks checks-kunit checks-check-c

# A view of the pipeline (ci/run.sh --view): the checks step on
# COMMITS="a b" (default: every commit, KUnit on the base and the head);
# CHECKS_ONLY="sparse cocci": a subset; KUNIT=0.
checks: tools
	$(Q)CI_COMMITS="$$COMMITS" sh ci/run.sh --view checks

checks-kunit: $(BIN)/kunit-records $(BIN)/record-write
	$(Q)set -f; sh checks/kunit.sh $$COMMITS

checks-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f checks/*.c

HELP += '  checks         checkpatch, changelog lint, sparse, coccinelle (+ checks/cocci), clang'
HELP += '                 on every commit (new vs parent), KUnit on base and head; out/ci/<commit>/checks'
HELP += '                 (COMMITS=, CHECKS_ONLY="sparse cocci", KUNIT=0)'
HELP += '  checks-kunit   KUnit memcpy and usercopy suites in QEMU, CPU variants (COMMITS=)'
HELP += '  checks-check-c checkpatch.pl --strict on the checks C'
