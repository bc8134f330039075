# x86-copy-series: carry one x86 patch series on a pinned kernel and prove
# every commit of it.  `make help` lists the targets.
#
#   make          the main job: deps, kernel-tree, apply, then the whole
#                 per-commit pipeline (make ci: build, checks, bench-vm,
#                 bench) and its report
#   make quick    the same for base and head only, small and short
#   make test     the test suite (TAP, run by prove)

.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

OUT ?= $(CURDIR)/out
export OUT
# KERNEL_TREE=~/linux KERNEL_BASE=v6.12.117: use your own clone (through a
# worktree and refs/x86-copy-series/*, never your branches)
export KERNEL_TREE KERNEL_BASE
# KCONFIG=distro|tiny: the guest kernel's configuration (build/kconfig.sh)
export KCONFIG
# options of the maintenance targets, passed to their scripts
export VERSION PREV TO TO_DEBIAN REPLIES SEND FROM PATCHES_OUT COMMITS

# A value given on make's command line is exported as make expands it: a
# "$(x)" in it reached the script as nothing (make merge RESULTS='/a$(x)b'
# looked for /ab).  The values the recipes read from their environment
# (below and in the fragments) are kept as the user wrote them, and
# exported (an override is not, of itself).  (OUT and BIN are refused
# when they hold a "$": the check below.)
USER_VALUES = KERNEL_TREE KERNEL_BASE KCONFIG VERSION PREV TO TO_DEBIAN REPLIES SEND FROM \
	PATCHES_OUT COMMITS SPECS ACCEL CLOCK MODEL CI_SET GUEST_MITIGATIONS GATE_ACK \
	GATE_ONLY CI_COMMITS CI_STEPS CI_SCHEDULE CI_VM_JOBS NS_SIZE REBINDS CPU MODEL_ARGS \
	BENCH_ARGS RESULTS MERGE_COMMITS CI_QUICK ID REPORT REPORT_OUT COVER REPLY_FILE TESTS \
	COST_COMMIT COST_PAGES COST_SAMPLES COST_ROUNDS JOBS NVDIMM_DIR PAGES WORKTREE KCIDB_OUT \
	HTML_OUT MERGE RANGE_DIFF CEILINGS
$(foreach v,$(USER_VALUES),$(if $(filter command line,$(origin $(v))),$(eval override $(v) := $$(value $(v)))$(eval export $(v))))

CC = gcc
CFLAGS = -O2 -g -Wall -Wextra -Werror -std=gnu11 -Ilib
# SANITIZE=1 (the test suite's default): ASan and UBSan.  UBSan traps at
# the first error (ud2) and ASan reports the SIGILL with its stack
# (ASAN_OPTIONS=handle_sigill=1, tests/lib.sh): with ASan linked in, GCC's
# UBSan prints only to stderr, which scripts may discard, while ASan's
# reports go to the file that log_path names.
SANITIZE_CFLAGS = -fsanitize=address,undefined -fsanitize-undefined-trap-on-error -fno-omit-frame-pointer
ifeq ($(SANITIZE),1)
CFLAGS += $(SANITIZE_CFLAGS)
endif

ifeq ($(V),1)
Q =
quiet = @:
else
Q = @
quiet = @echo
endif

BIN = $(OUT)/bin
export BIN
# The tools' objects and flags file sit beside $(BIN), not under $(OUT):
# the test suite runs make with OUT=out/test and BIN=out/bin, and
# objects of that OUT's own would relink out/bin while other tests run it.
TOOLS_OUT = $(patsubst %/,%,$(dir $(BIN)))
export TOOLS_OUT
# Every recipe reads the values a user gives (COMMITS, ID, RESULTS, OUT,
# BIN...) from its environment ("$$COMMITS"), exported above or in the
# fragments: a value pasted into a recipe's text would be read by the
# shell as code (make merge RESULTS='x; touch y' ran the touch, and the
# touch's status became the target's).  The one place make pastes a
# value itself is a target's name ($@, the tools' rules under $(BIN) and
# $(TOOLS_OUT)): OUT and BIN are refused where the shell would read
# anything of them but a path, before any rule runs.  (CC, CFLAGS and
# LDLIBS are shell words by make's own convention, CFLAGS='-O2 -g' two
# of them: the builder's, they stay in the compile commands.)
shell_chars := ; & | < > ' " ` $$ \ ( ) * ? [ \#
unsafe_path = $(or $(filter-out 1,$(words $(1))),$(strip $(foreach c,$(shell_chars),$(findstring $(c),$(1)))))
# the toolkit's own directory: its scripts name their files as a word each
$(if $(call unsafe_path,$(CURDIR)),$(error make: the toolkit's directory '$(CURDIR)' has blanks or one of $(shell_chars): clone it to a plain path))
$(foreach v,OUT BIN,$(if $(call unsafe_path,$($(v))),$(error make: $(v): '$($(v))' has blanks or one of $(shell_chars), and make writes it into commands unquoted: give a plain path)))
# The C tools: one compile rule and one link rule (below, after every
# area's fragment).  objs: the objects of some sources, out/obj/<path>.o
# (the source's name kept whole: bench/costs.c and bench/costs.S are two)
objs = $(patsubst %,$(TOOLS_OUT)/obj/%.o,$(1))
LDLIBS = -ljson-c -lgsl -lgslcblas -lm
# lib/: what the tools of several areas share: the record reader and
# writer, the statistics, the table of records (ci-report, ci-merge,
# bench-vm-report), errors and allocation
LIB_OBJ = $(call objs,lib/table.c lib/setup.c lib/record-read.c lib/record-fields.c \
	  lib/record-write.c lib/stats.c lib/util.c lib/mbox.c lib/costs.c)
# Each area adds its tools to C_TOOLS (linked by the rule below) or, for
# a tool built otherwise, to TOOLS, with their prerequisites
C_TOOLS = $(BIN)/record-write $(BIN)/record-reuse
TOOLS =
# Each area adds its targets, tools (TOOLS += ...) and help lines
# (HELP += ...) in its own fragment.
HELP =
-include report/report.mk series/series.mk bench-vm/bench-vm.mk bench/bench.mk checks/checks.mk \
	review/review.mk ci/ci.mk scripts/coverage.mk

.PHONY: all quick help deps deps-check deps-merge kernel-tree kernel-import test-prep apply build export range-diff repin \
	trailers send tools test test-quick test-fresh print-sanitize-cflags print-shell-sources check-c lint clean distclean

all: deps kernel-tree apply
	$(Q)$(MAKE) --no-print-directory ci CI_SET=main

quick: deps kernel-tree apply
	$(Q)$(MAKE) --no-print-directory ci-quick CI_SET=main

help:
	@echo 'x86-copy-series targets:'
	@echo '  all (default)  deps, kernel-tree, apply, then ci CI_SET=main: every commit built,'
	@echo '                 checked (checkpatch, changelog, sparse, coccinelle, codegen),'
	@echo '                 benchmarked (bench-vm, bench), the report and the gate'
	@echo '  quick          deps, kernel-tree, apply, ci-quick: base and head, small and short'
	@echo '  deps           install the Debian packages of scripts/deps.list (apt-get as root,'
	@echo '                 else print the command)'
	@echo '  deps-check     one real use of every dependency in scripts/deps.list (TAP)'
	@echo '  deps-merge     the packages make merge alone needs (gcc, json-c, GSL): the workflow'"'"'s merge job'
	@echo '  kernel-import  import/verify the pinned kernel alone (no ref, no worktree: the tests)'
	@echo '  build          build the base and every series commit (O=out/build/<commit>, ccache;'
	@echo '                 COMMITS=...): like checks, bench-vm and bench, the pipeline'"'"'s step alone'
	@echo '  tools          build the C tools into out/bin'
	@echo '  test           run the test suite (prove tests/)'
	@echo '  test-quick     the tests that build no kernel and boot no guest (day to day)'
	@echo '  test-fresh     make test in a fresh minimal Debian 12 root (a clone of HEAD)'
	@echo '  check-c        checkpatch.pl --no-tree -f on our own C'
	@echo '  lint           shellcheck on all our shell, checkpatch.pl on all our C'
	@echo '  clean          remove out/bin and build results (keeps the worktree and ccache)'
	@echo '  distclean      remove out/ and the worktree registration'
	@printf '%s\n' $(HELP)
	@echo 'variables: KERNEL_TREE=<your linux clone> KERNEL_BASE=<rev>, OUT=<dir>,'
	@echo '           KCONFIG=distro (the guest kernel: a distro kernel'"'"'s measured code, the'
	@echo '           default) or tiny (tinyconfig at -Os: quicker, a kernel nobody runs),'
	@echo '           CI_SET=main|full (make: main; make ci: full, with configs, clang, KUnit),'
	@echo '           JOBS=<n>, V=1 (show commands), SANITIZE=1 (ASan+UBSan tools)'

deps:
	$(Q)sh scripts/deps.sh

deps-check:
	$(Q)sh scripts/deps-check.sh

# what make merge alone needs (the workflow's merge job): ci-merge's
# compiler and libraries
deps-merge:
	$(Q)sh scripts/deps.sh make gcc json-c gsl

# A view of the pipeline (ci/run.sh --view): the build step on
# COMMITS='base head' or any revisions (default: every commit), with make
# ci's stamps and results in $(OUT)/ci
build: tools
	$(Q)CI_COMMITS="$$COMMITS" sh ci/run.sh --view build

tools: $(TOOLS) $(C_TOOLS)

# A flags file rewritten only when its content changes, so new flags
# rebuild the tools and nothing else (the flags reach the shell as a
# value: a CFLAGS=-DX='"y"' would end a quoted copy of it).
$(TOOLS_OUT)/cflags: export TOOLS_CFLAGS = $(CC) $(CFLAGS)
$(TOOLS_OUT)/cflags: FORCE
	@mkdir -p "$$TOOLS_OUT"
	@printf '%s\n' "$$TOOLS_CFLAGS" | cmp -s - "$$TOOLS_OUT/cflags" || \
		printf '%s\n' "$$TOOLS_CFLAGS" >"$$TOOLS_OUT/cflags"

# the one record CLI (build, checks): lib's record writer, no mbox
$(BIN)/record-write: $(call objs,tools/record-write.c lib/record-write.c)
# ci/run.sh's reuse of a step's records under another commit id: the
# reader's checks (record-fields) and the writer
$(BIN)/record-reuse: $(call objs,tools/record-reuse.c) $(LIB_OBJ)

# One compile rule for every C and assembly file of the C tools (no kernel
# tree needed: lib/compiler.h has the kernel's __printf, __noreturn): the
# object out/obj/<source>.o (lib/stats.c: out/obj/lib/stats.c.o), and its
# header dependencies as the compiler finds them (-MMD -MP:
# out/obj/lib/stats.c.d), so no list of headers is kept by hand.  New
# flags ($(TOOLS_OUT)/cflags) rebuild every object.
$(TOOLS_OUT)/obj/%.c.o: %.c $(TOOLS_OUT)/cflags
	@mkdir -p $(@D)
	$(quiet) '  CC     ' $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(TOOLS_OUT)/obj/%.S.o: %.S $(TOOLS_OUT)/cflags
	@mkdir -p $(@D)
	$(quiet) '  AS     ' $@
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

-include $(wildcard $(TOOLS_OUT)/obj/*/*.d $(TOOLS_OUT)/obj/*/*/*.d $(TOOLS_OUT)/obj/*/*/*/*.d)

# The test suite needs the packages (deps), the pinned kernel imported
# (some tools, gen_init_cpio, come from it; its tests make their own
# worktree under out/test, so out/tree is not checked out for them) and
# the sanitized tools.
kernel-import: deps
	$(Q)KERNEL_TREE= KERNEL_BASE= sh series/kernel-tree.sh --import-only

# The sanitized tools are built while the kernel is imported (the import
# mostly waits on the disk: ~20 s of a clean clone's make test-quick);
# gen_init_cpio, built from the import, once it is there.  The packages
# first: the tools' headers come from them.
# (The second make is given no GEN_INIT_CPIO_SRC: this make exported the
# one it found before the import, a path that is not there.)
test-prep: deps
	$(Q)$(MAKE) --no-print-directory -j2 kernel-import tools SANITIZE=1
	$(Q)env -u GEN_INIT_CPIO_SRC $(MAKE) --no-print-directory tools SANITIZE=1

test: test-prep
	$(Q)sh tests/run-suite.sh

# Day to day: the tests that build no kernel and boot no guest
# (tests/run-suite.sh, '# test-quick: no' in a test's header)
test-quick: test-prep
	$(Q)TEST_QUICK=1 sh tests/run-suite.sh

# The whole suite as on a new user's machine: a minimal Debian 12 root
# (scripts/fresh-root.sh), README's first step, a clone of HEAD, make test.
test-fresh:
	$(Q)sh scripts/fresh-root.sh run clone 'make test'

# for tests/t0003: the flags the suite's tools are built with
print-sanitize-cflags: export PRINT_VALUE = $(SANITIZE_CFLAGS)
print-sanitize-cflags:
	@printf '%s\n' "$$PRINT_VALUE"

# user-space C: no kernel u64 (<stdint.h>), CPUID only on x86 (cpuid.h),
# and GSL's own CamelCase names (gsl_cdf_tdist_Pinv) are not ours to change;
# lib/compiler.h defines the __printf and __noreturn checkpatch asks for
check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q \
		--ignore PREFER_KERNEL_TYPES,ARCH_DEFINES,CAMELCASE \
		-f $(filter-out lib/compiler.h,$(wildcard lib/*.[ch])) tools/*.c

# make lint: the shell checked as the C is: shellcheck on every script
# (.shellcheckrc and tests/.shellcheckrc say what they leave out and why;
# the rest is silenced where it stands, with a reason), checkpatch.pl
# --strict on every C file of every area, and actionlint on the GitHub
# workflows (scripts/actionlint.sh).  tests/t0080 runs it.
SHELL_SOURCES = $(wildcard scripts/*.sh series/*.sh build/*.sh bench/*.sh bench-vm/*.sh checks/*.sh \
	ci/*.sh report/*.sh review/*.sh tests/lib.sh tests/run-suite.sh tests/*.t tests/fixtures/*/*.sh \
	results/*/*.sh results/*/*/*.sh) .ci/run
lint: check-c bench-vm-check-c bench-check-c checks-check-c ci-check-c
	$(Q)shellcheck -x $(SHELL_SOURCES)
	$(Q)sh scripts/actionlint.sh

print-shell-sources:
	@echo '$(SHELL_SOURCES)'

clean:
	rm -rf "$$BIN" "$$TOOLS_OUT/cflags" "$$TOOLS_OUT/obj" "$$OUT/build" "$$OUT/apply"

distclean:
	rm -rf "$$OUT"
	-git -C kernel-tree worktree prune 2>/dev/null

FORCE:

# One link rule for every C tool: each names its objects (objs) as its
# prerequisites, every area's fragment included above.
$(C_TOOLS):
	@mkdir -p $(@D)
	$(quiet) '  LD     ' $@
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS)
