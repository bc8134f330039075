# review/review.mk: the reviewer's and tester's side: one claim's
# materials to run anywhere (make reproduce) and the tester's reply to the
# cover letter (make reply), both from a report's JSON (ci-reproduce).
# Included by the top-level Makefile.

C_TOOLS += $(BIN)/ci-reproduce
$(BIN)/ci-reproduce: $(call objs,review/reproduce.c review/reply.c review/report-json.c) $(LIB_OBJ)

.PHONY: reproduce reply review-check-c

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
	$(Q)sh review/reproduce.sh "$$ID"

# a tester's reply to the cover letter, from the report's claims
reply: $(CI_REPRODUCE_DEP)
	$(Q)sh review/reply.sh

review-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f review/*.c review/*.h

HELP += '  reproduce      ID=<claim id>: out/reproduce/<id>/ with reproduce.sh and metadata.json, the'
HELP += '                 claim'"'"'s kernels, tools and settings: its guest figures again, anywhere'
HELP += '                 (REPORT=out/ci/report.json; CI_QUICK=1: make quick'"'"'s)'
HELP += '  reply          a reply to the cover letter (out/reply/reply.mbox): per patch claimed vs'
HELP += '                 reproduced, the setups, the commands; Tested-by only if all held'
HELP += '  review-check-c checkpatch.pl --strict on the review C'
