/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode.h - which x86-64 instructions the model counts apart, from
 * their bytes (a QEMU 7.2 plugin sees an instruction's bytes, never its
 * operands' values).
 */
#ifndef BENCH_VM_DECODE_H
#define BENCH_VM_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum insn_class {
	INSN_PLAIN,	/* loads and stores through the cache */
	INSN_NT,	/* MOVNTI, MOVNTDQ/MOVNTPS/MOVNTPD, MOVNTQ, MOVDIR64B, MOVDIRI */
	INSN_REP_MOVS,	/* REP/REPNE MOVSB/W/D/Q: one load and one store an iteration */
	INSN_REP_STOS,	/* REP/REPNE STOSB/W/D/Q: one store an iteration */
	INSN_SFENCE,
	INSN_MFENCE,
	INSN_MARKER,	/* the agent's window marker, see MARKER_MAGIC */
	NR_INSN_CLASSES
};

/*
 * The agent's window marker: "nopl MARKER_MAGIC+op(%rax)", the 7 bytes
 * 0f 1f 80 <disp32>, a NOP that no compiler emits with this displacement
 * (agent.c, model_mark()).  op 1 opens a window, 2 closes it.
 */
#define MARKER_MAGIC 0x4d564200u	/* "\0BVM", little-endian */
#define MARKER_OPEN 1
#define MARKER_CLOSE 2

/* The class of the instruction at @p (@len bytes); *@op for a marker. */
enum insn_class insn_classify(const uint8_t *p, size_t len, unsigned int *op);

#endif
