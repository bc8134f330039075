# scripts/coverage.mk: how much of the C tools the tests run (gcov, gcovr).
# Included by the top-level Makefile.
#
#   make coverage                  the C tools built with --coverage into
#                                  $(OUT)/coverage/bin (out/bin untouched),
#                                  the default test files run against them,
#                                  the report in $(OUT)/coverage/
#   make coverage TESTS='tests/t0500-changelog-lint.t ...'   other tests
#
# What it writes and which tests it runs by default: scripts/coverage.sh.

# COVERAGE=1 (only the sub-make below sets it): gcov instrumentation, no
# optimization, so that lines and branches are the source's.  The
# sub-make's OUT has no kernel tree: gen_init_cpio (the guest tests'
# initramfs writer, not measured) is built from this one's.
ifeq ($(COVERAGE),1)
CFLAGS += -O0 --coverage
endif
export TESTS

.PHONY: coverage
coverage:
	$(Q)$(MAKE) --no-print-directory tools OUT="$$OUT/coverage" COVERAGE=1 SANITIZE= \
		GEN_INIT_CPIO_SRC="$$GEN_INIT_CPIO_SRC"
	$(Q)COV="$$OUT/coverage" sh scripts/coverage.sh

HELP += '  coverage       line and branch coverage of the C tools by the tests: out/coverage/'
HELP += '                 (summary.txt, html/index.html; TESTS=tests/tNNNN-....t to choose)'
