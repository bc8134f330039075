/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for asm/asm.h: the exception table entries of copy_user_64.S
 * only matter when a user access faults; the bench copies between mapped
 * buffers, so no entry is needed (a fault would crash the bench, loudly).
 * STAC/CLAC are done by the callers of rep_movs_alternative, outside the
 * file, and are not modeled.
 */
#define _ASM_EXTABLE_UA(from, to)
