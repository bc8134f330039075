// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - the instruction classes of decode.h, from the opcode bytes
 * after the legacy prefixes and REX (Intel SDM vol. 2, tables ).
 * VEX/EVEX forms (VMOVNTDQ...) are not recognised: the kernel uses no
 * AVX in its copy routines.
 */
#include "decode.h"

enum insn_class insn_classify(const uint8_t *p, size_t len, unsigned int *op)
{
	const uint8_t *end = p + len;
	int rep = 0, opsize = 0;
	uint32_t disp;

	if (len == 7 && p[0] == 0x0f && p[1] == 0x1f && p[2] == 0x80) {
		disp = p[3] | p[4] << 8 | p[5] << 16 | (uint32_t)p[6] << 24;
		if ((disp & ~0xffu) == MARKER_MAGIC &&
		    ((disp & 0xff) == MARKER_OPEN || (disp & 0xff) == MARKER_CLOSE)) {
			*op = disp & 0xff;
			return INSN_MARKER;
		}
	}
	for (; p < end; p++) {
		switch (*p) {
		case 0xf2:
		case 0xf3:
			rep = 1;
			continue;
		case 0x66:
			opsize = 1;
			continue;
		case 0x67: case 0xf0: case 0x2e: case 0x36:
		case 0x3e: case 0x26: case 0x64: case 0x65:
			continue;
		}
		break;
	}
	if (p < end && (*p & 0xf0) == 0x40)	/* REX */
		p++;
	if (p >= end)
		return INSN_PLAIN;
	switch (*p) {
	case 0xa4: case 0xa5:
		return rep ? INSN_REP_MOVS : INSN_PLAIN;
	case 0xaa: case 0xab:
		return rep ? INSN_REP_STOS : INSN_PLAIN;
	case 0x0f:
		break;
	default:
		return INSN_PLAIN;
	}
	if (++p >= end)
		return INSN_PLAIN;
	switch (*p) {
	case 0xc3:	/* MOVNTI m32/m64, r */
	case 0x2b:	/* MOVNTPS (66: MOVNTPD) m128, xmm */
	case 0xe7:	/* MOVNTQ m64, mm (66: MOVNTDQ m128, xmm) */
		return INSN_NT;
	case 0x38:	/* 66 0f 38 f8: MOVDIR64B r, m512; 0f 38 f9: MOVDIRI m, r */
		if (p + 1 >= end || rep)
			return INSN_PLAIN;
		if ((p[1] == 0xf8 && opsize) || (p[1] == 0xf9 && !opsize))
			return INSN_NT;
		return INSN_PLAIN;
	case 0xae:	/* group 15: register forms only, the memory forms flush */
		if (p + 1 >= end || rep || opsize || (p[1] & 0xc0) != 0xc0)
			return INSN_PLAIN;
		if ((p[1] & 0x38) == 0x38)
			return INSN_SFENCE;
		if ((p[1] & 0x38) == 0x30)
			return INSN_MFENCE;
		return INSN_PLAIN;
	}
	return INSN_PLAIN;
}
