# bench-vm: boot each commit's kernel under QEMU with two emulated NVDIMMs
# and time the nd_pmem and dax_pmem rebinds (the changelogs' procedure).
# Included by the top-level Makefile.

BENCH_VM_AGENT_SRC = bench-vm/agent/agent.c bench-vm/agent/kmsg.c bench-vm/agent/kmsg.h \
	bench-vm/agent/protocol.h \
	bench-vm/plugin/size.h \
	bench-vm/plugin/decode.h lib/compiler.h
# The agent is PID 1 of an initramfs with nothing else in it: static, and
# never sanitized (ASan does not link statically).
BENCH_VM_AGENT_CFLAGS = -O2 -Wall -Wextra -Werror -std=gnu11 -static
# The kernel's own initramfs writer (no root needed; uid and mtime from the
# file list and -t).  Warnings are the kernel's business, not ours.  From
# the pinned import (kernel-tree/, never edited), else from the worktree
# (KERNEL_TREE=<your clone>): not from the worktree first, whose checkout
# moves from commit to commit.
GEN_INIT_CPIO_SRC ?= $(or $(wildcard kernel-tree/usr/gen_init_cpio.c),$(OUT)/tree/usr/gen_init_cpio.c)
export GEN_INIT_CPIO_SRC

# the model plugin (run.sh --model cache) and its test
include bench-vm/plugin/plugin.mk

TOOLS += $(BIN)/bench-vm-agent
C_TOOLS += $(BIN)/bench-vm-kmsg-test $(BIN)/bench-vm-collect $(BIN)/bench-vm-report
# Before 'make kernel-tree' there is no worktree to take gen_init_cpio
# from: 'make tools' still builds the rest, and whatever needs it says why.
ifeq ($(wildcard $(GEN_INIT_CPIO_SRC)),)
$(GEN_INIT_CPIO_SRC):
	@printf '%s\n' "bench-vm: gen_init_cpio: $$GEN_INIT_CPIO_SRC is missing: run 'make kernel-tree' first" >&2; exit 1
else
TOOLS += $(BIN)/gen_init_cpio
endif

$(BIN)/bench-vm-agent: $(BENCH_VM_AGENT_SRC)
	@mkdir -p $(@D)
	$(quiet) '  CC     ' $@
	$(Q)$(CC) $(BENCH_VM_AGENT_CFLAGS) -o $@ bench-vm/agent/agent.c bench-vm/agent/kmsg.c

$(BIN)/bench-vm-kmsg-test: $(call objs,bench-vm/agent/kmsg-test.c bench-vm/agent/kmsg.c)
$(BIN)/bench-vm-collect: $(call objs,bench-vm/collect.c lib/record-write.c lib/record-fields.c lib/util.c)
# a view of lib/'s table of records (LIB_OBJ, the top-level Makefile)
$(BIN)/bench-vm-report: $(call objs,bench-vm/report.c) $(LIB_OBJ)

$(BIN)/gen_init_cpio: $(GEN_INIT_CPIO_SRC)
	@mkdir -p $(@D)
	$(quiet) '  HOSTCC ' $@
	$(Q)$(CC) -O2 -o $@ "$$GEN_INIT_CPIO_SRC"

.PHONY: bench-vm bench-vm-check-c

# A view of the pipeline (ci/run.sh --view): the build and bench-vm steps
# on COMMITS="a b" (default: the base and the series head), the first the
# reference of the report; CPU=max,+fsrm: QEMU's -cpu; NS_SIZE=100G;
# REBINDS=30; TIMEOUT=<s>; ACCEL=auto|kvm|tcg; CLOCK=auto|icount|wall
# (auto: icount under TCG, wall under KVM); PAGES=1: compare the struct
# pages (each commit's module built against its own headers: the worktree
# moves, so the guests run one at a time); NVDIMM_DIR=/dev/shm
# (bench-vm/run.sh).
export ACCEL CLOCK MODEL
bench-vm: export PAGES_CHECKOUT = $(if $(filter 1,$(PAGES)),1,)
bench-vm: tools $(BIN)/bench-vm-agent $(BIN)/gen_init_cpio
	$(Q)CI_COMMITS="$$COMMITS" sh ci/run.sh --view bench-vm

# The plugin is user-space C against QEMU's API: its <stdint.h> types and
# the typedefs QEMU's header defines are not ours to change, and its
# events are one .def table included as X-macros (as perf bench does).
bench-vm-check-c:
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q -f \
		bench-vm/*.c bench-vm/agent/*.[ch] bench-vm/pages/*.c
	$(Q)perl kernel-tree/scripts/checkpatch.pl --no-tree --strict -q \
		--ignore PREFER_KERNEL_TYPES,NEW_TYPEDEFS,COMPLEX_MACRO,MACRO_ARG_UNUSED -f \
		bench-vm/plugin/*.[ch]

HELP += '  bench-vm       boot base and series head (or COMMITS=...) in QEMU with 2 NVDIMMs,'
HELP += '                 time 30 nd_pmem and dax_pmem rebinds (CPU=, NS_SIZE=, REBINDS=,'
HELP += '                 CLOCK=icount|wall: TCG defaults to icount, exact emulated work;'
HELP += '                 PAGES=1: struct pages equal to the first kernel, NVDIMM_DIR=)'
HELP += '  bench-vm MODEL=cache  the same with the store and cache model (a QEMU TCG plugin):'
HELP += '                 exact per-bind counts, misses, est_cycles, top functions;'
HELP += '                 model: write-allocate, streaming stores bypass; not hardware time'
HELP += '  bench-vm-check-c  checkpatch.pl --strict on the bench-vm C'
