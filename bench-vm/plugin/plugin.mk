# bench-vm/plugin: the store and cache model, a QEMU TCG plugin
# (bench-vm-model.so, loaded by run.sh --model cache) and its host test.
# Included by bench-vm/bench-vm.mk.

BENCH_VM_MODEL_CORE = bench-vm/plugin/model.c bench-vm/plugin/cache.c \
	bench-vm/plugin/decode.c bench-vm/plugin/symbols.c
BENCH_VM_MODEL_HDRS = $(wildcard bench-vm/plugin/*.h) bench-vm/plugin/events.def
# dlopen()ed by QEMU: position-independent, only qemu_plugin_install and
# qemu_plugin_version exported, never sanitized (ASan cannot be loaded
# into a QEMU that was not started with it), no glib.
BENCH_VM_MODEL_CFLAGS = -O2 -g -Wall -Wextra -Werror -std=gnu11 -fPIC -shared \
	-fvisibility=hidden
# make coverage: gcov counters, written by the plugin's own exit callback
# (QEMU's user mode ends with exit_group(), which runs no exit handler)
ifeq ($(COVERAGE),1)
BENCH_VM_MODEL_CFLAGS += -O0 --coverage -DMODEL_COVERAGE
endif

TOOLS += $(BIN)/bench-vm-model.so
C_TOOLS += $(BIN)/bench-vm-model-test

$(BIN)/bench-vm-model.so: bench-vm/plugin/plugin.c $(BENCH_VM_MODEL_CORE) $(BENCH_VM_MODEL_HDRS)
	@mkdir -p $(@D)
	$(quiet) '  CCLD   ' $@
	$(Q)$(CC) $(BENCH_VM_MODEL_CFLAGS) -o $@ bench-vm/plugin/plugin.c $(BENCH_VM_MODEL_CORE)

# the model without QEMU: decode, caches and windows on known inputs (t0394)
$(BIN)/bench-vm-model-test: $(call objs,bench-vm/plugin/model-test.c $(BENCH_VM_MODEL_CORE))
