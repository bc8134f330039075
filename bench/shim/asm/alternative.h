/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for asm/alternative.h in assembly: the kernel patches the
 * instructions at boot from the CPU's features; here the branch is chosen
 * at assembly time from the simulated feature set (asm/cpufeatures.h).
 * Same precedence as the kernel's apply_alternatives(): for ALTERNATIVE_2
 * the later feature wins when both are set.
 *
 * Symbols named inside the strings (jmp memcpy_orig) are not seen by the
 * C preprocessor; variants are renamed after assembly (objcopy
 * --prefix-symbols in bench/gen.sh), so several link into one object.
 */
.macro ALTERNATIVE oldinstr, newinstr, ft_flags
	.if \ft_flags
	\newinstr
	.else
	\oldinstr
	.endif
.endm

.macro ALTERNATIVE_2 oldinstr, newinstr1, ft_flags1, newinstr2, ft_flags2
	.if \ft_flags2
	\newinstr2
	.elseif \ft_flags1
	\newinstr1
	.else
	\oldinstr
	.endif
.endm
