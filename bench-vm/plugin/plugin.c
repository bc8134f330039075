// SPDX-License-Identifier: GPL-2.0
/*
 * plugin.c - bench-vm-model.so, the QEMU TCG plugin of bench-vm's store
 * and cache model (model.h): it counts, per window of the guest agent
 * (its bind of a device, agent.c), every instruction, load and store,
 * streaming store, REP MOVS/STOS iteration and fence, through the caches
 * of the model, per guest function (the kernel's System.map).
 *
 *   qemu-system-x86_64 -accel tcg -icount shift=0,sleep=off \
 *       -plugin bench-vm-model.so,out=FILE[,symbols=System.map][,KEY=VALUE]...
 *   qemu-x86_64 -plugin bench-vm-model.so,out=FILE PROGRAM...   (user mode:
 *       one thread; the windows of a host program, bench/costs.sh)
 * Keys (model.c has the defaults): l1d_size, l1d_ways, llc_size,
 * llc_ways (sizes with K, M or G), top (functions written per window),
 * w_l1, w_llc, w_mem, w_fence (the weights of est_cycles).
 *
 * Windows: a QEMU 7.2 plugin cannot read registers, but it sees each
 * instruction's bytes when QEMU translates it; the agent marks a window
 * with two NOPs of its own, "nopl 0x4d564201(%rax)" to open and
 * "...02(%rax)" to close (decode.h, MARKER_MAGIC), and the plugin calls
 * model_open() and model_close() when they execute.  Windows are
 * numbered from 1 in the order opened, as the agent numbers them.
 *
 * FILE gets tab-separated lines (bench-vm/collect.c reads them):
 *   model  name=cache l1d_size= l1d_ways= llc_size= llc_ways= line= vcpus=
 *          top= w_l1= w_llc= w_mem= w_fence= functions=
 *   window seq= <event>=... est_cycles=            (events.def)
 *   func   seq= rank= name= <event>=... est_cycles=   the top functions
 *   end    windows= bad_markers= write=ok|failed
 * Counting is exact: inline counters for instructions, a callback on
 * every memory access (cheap outside a window: one test) and on every
 * streaming store and fence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu-plugin-api.h"
#include "model.h"
#include "size.h"
#include "symbols.h"

#define PROG "bench-vm-model"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static struct model model;
static struct symbols syms;
static FILE *out;
static const char *out_path;
static int write_failed;

/* An instruction's function and class, as the callbacks' userdata. */
#define UDATA(func, cls) ((void *)(((uintptr_t)(func) << 4) | (cls)))
#define UD_FUNC(ud) ((size_t)((uintptr_t)(ud) >> 4))
#define UD_CLASS(ud) ((enum insn_class)((uintptr_t)(ud) & 15))

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		   void *ud)
{
	if (!model.active)
		return;
	model_access(&model, vcpu, UD_FUNC(ud), UD_CLASS(ud), vaddr,
		     1u << qemu_plugin_mem_size_shift(info), qemu_plugin_mem_is_store(info));
}

static void on_exec(unsigned int vcpu, void *ud)
{
	(void)vcpu;
	model_exec(&model, UD_FUNC(ud), UD_CLASS(ud));
}

static const char *func_name(size_t func, void *arg)
{
	(void)arg;
	return symbols_name(&syms, func);
}

static void on_marker(unsigned int vcpu, void *ud)
{
	(void)vcpu;
	if ((uintptr_t)ud == MARKER_OPEN) {
		model_open(&model);
		return;
	}
	if (!write_failed && model_close(&model, out, func_name, NULL) < 0) {
		fprintf(stderr, PROG ": write: %s: %s\n", out_path, strerror(errno));
		write_failed = 1;
	}
}

/*
 * User mode (qemu-x86_64, bench/costs.sh): each thread of the program is
 * a vCPU, and the model has one: a second thread is refused, not counted
 * into another's caches.
 */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu < model.nr_vcpus)
		return;
	fprintf(stderr, PROG ": vCPU %u: the model counts %u (a second thread in user mode)\n",
		vcpu, model.nr_vcpus);
	exit(1);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		enum insn_class cls;
		unsigned int op = 0;
		size_t func;

		cls = insn_classify(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn),
				    &op);
		if (cls == INSN_MARKER) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)op);
			continue;
		}
		func = symbols_find(&syms, qemu_plugin_insn_vaddr(insn));
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &model.insns[func], 1);
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, UDATA(func, cls));
		/* counted per instruction: QEMU splits a 16-byte store in two */
		if (cls == INSN_NT || cls == INSN_SFENCE || cls == INSN_MFENCE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec,
							       QEMU_PLUGIN_CB_NO_REGS,
							       UDATA(func, cls));
	}
}

#ifdef MODEL_COVERAGE
void __gcov_dump(void);
#endif

static void on_atexit(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	if (fprintf(out, "end\twindows=%u\tbad_markers=%u\twrite=%s\n", model.seq,
		    model.bad_markers, write_failed ? "failed" : "ok") < 0 || fclose(out)) {
		fprintf(stderr, PROG ": write: %s: %s\n", out_path, strerror(errno));
	}
	out = NULL;
	model_free(&model);
	symbols_free(&syms);
#ifdef MODEL_COVERAGE
	__gcov_dump();
#endif
}

/* The key=value arguments: where each goes. */
enum arg_kind { ARG_PATH, ARG_SIZE, ARG_UINT };

static const char *symbols_path;
static struct model_params params;

static const struct arg {
	const char *key;
	enum arg_kind kind;
	void *dst;
} args[] = {
	{ "out", ARG_PATH, &out_path },
	{ "symbols", ARG_PATH, &symbols_path },
	{ "l1d_size", ARG_SIZE, &params.l1d_size },
	{ "l1d_ways", ARG_UINT, &params.l1d_ways },
	{ "llc_size", ARG_SIZE, &params.llc_size },
	{ "llc_ways", ARG_UINT, &params.llc_ways },
	{ "top", ARG_UINT, &params.top },
	{ "w_l1", ARG_SIZE, &params.w_l1 },
	{ "w_llc", ARG_SIZE, &params.w_llc },
	{ "w_mem", ARG_SIZE, &params.w_mem },
	{ "w_fence", ARG_SIZE, &params.w_fence },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NR_ARGS ARRAY_SIZE(args)

static int parse_arg(const char *a)
{
	const char *eq = strchr(a, '=');
	size_t i, n = eq ? (size_t)(eq - a) : 0;
	unsigned long long v;

	for (i = 0; eq && i < NR_ARGS; i++) {
		if (strlen(args[i].key) != n || strncmp(a, args[i].key, n))
			continue;
		if (args[i].kind == ARG_PATH) {
			if (!eq[1])
				break;
			*(const char **)args[i].dst = eq + 1;
			return 0;
		}
		if (parse_size(eq + 1, &v) || (args[i].kind == ARG_UINT && v > 1u << 20))
			break;
		if (args[i].kind == ARG_UINT)
			*(unsigned int *)args[i].dst = (unsigned int)v;
		else
			*(uint64_t *)args[i].dst = v;
		return 0;
	}
	fprintf(stderr, PROG ": args: '%s' is not KEY=VALUE of a known key (out=FILE, %s)\n", a,
		"symbols=System.map; numbers: l1d_size, l1d_ways, llc_size, llc_ways, top, w_l1, w_llc, w_mem, w_fence");
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *why = NULL;
	int i, vcpus, fd;

	/* the API this plugin is written against must be one QEMU offers */
	if (info->version.cur < QEMU_PLUGIN_VERSION || info->version.min > QEMU_PLUGIN_VERSION) {
		fprintf(stderr,
			PROG ": install: QEMU offers plugin API versions %d..%d, %s %d (%s)\n",
			info->version.min, info->version.cur, "this plugin is written for",
			QEMU_PLUGIN_VERSION, "bench-vm/plugin/qemu-plugin-api.h");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, PROG ": install: needs qemu-system-x86_64 or qemu-x86_64, not %s\n",
			info->target_name);
		return -1;
	}
	params = model_defaults;
	for (i = 0; i < argc; i++)
		if (parse_arg(argv[i]))
			return -1;
	if (!out_path) {
		fprintf(stderr, PROG ": args: out=FILE is missing (where the counts go)\n");
		return -1;
	}
	if (symbols_load(&syms, symbols_path, &why)) {
		fprintf(stderr, PROG ": symbols: %s: %s (%s)\n", symbols_path, why,
			strerror(errno));
		return -1;
	}
	/*
	 * One vCPU: the LLC, the counters and a streaming store's eviction
	 * (from the writer's L1 only) are not shared safely between vCPUs,
	 * and the model keeps no coherence; run.sh boots -smp 1.
	 */
	vcpus = !info->system_emulation ? 1 :
		info->system.max_vcpus > 0 ? info->system.max_vcpus : 1;
	if (vcpus != 1) {
		fprintf(stderr, PROG ": install: the guest has %d vCPUs: %s\n", vcpus,
			"the model counts one (-smp 1)");
		return -1;
	}
	if (model_init(&model, &params, (unsigned int)vcpus, SYM_COUNT(&syms), &why)) {
		fprintf(stderr, PROG ": model: %s\n", why);
		return -1;
	}
	/*
	 * written as the guest runs (its last line says whether it is
	 * whole): opened in place, but never through a link put there
	 */
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out && fd >= 0)
		close(fd);
	if (!out || model_write_params(&model, out) < 0 || fflush(out)) {
		fprintf(stderr, PROG ": write: %s: %s\n", out_path, strerror(errno));
		return -1;
	}
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
