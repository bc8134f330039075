/* SPDX-License-Identifier: GPL-2.0 */
/*
 * costs.S - the kernels of the cost-classes experiment (costs.c): each
 * adds one class of work the guest model counts (bench-vm/plugin/
 * events.def) to what the ones before it do, so that a least-squares fit
 * of host times on the model's counts of the same calls (cost-fit.c)
 * separates the classes.  Written in assembly so that the instructions
 * timed are the instructions counted, whatever the compiler.
 *
 *   cost_alu(count)                count x (8 ADDs to 8 registers + loop):
 *                                  throughput, no chain longer than the loop
 *   cost_load(buf, len, reps)      reps x len bytes, 8 loads per line
 *   cost_load_line(buf, len, reps) reps x len bytes, 1 load per line
 *   cost_store(buf, len, reps)     reps x len bytes, 8 stores per line
 *   cost_store_line(buf, len, reps) reps x len bytes, 1 store per line
 *   cost_rmw(buf, len, reps)       per line: 1 load, then 8 stores
 *   cost_nt(buf, len, reps)        per line: 8 MOVNTI; SFENCE at the end
 *   cost_fence(buf, len, reps)     per line: 1 MOVNTI, then SFENCE
 *   cost_reread(buf, len, reps)    per line: 1 MOVNTI, SFENCE, then a load
 *                                  of the line streamed (series v1's RMW)
 *   cost_rep(dst, src, len, reps)  reps x REP MOVSB of len bytes
 *   cost_rep_short(dst, src, len, reps)  reps x REP MOVSL of len bytes
 *                                  (len / 4 iterations): a struct page as
 *                                  an -Os kernel copies it
 * len is a multiple of 64, reps and count at least 1.
 */
	.text

	.globl cost_alu
	.type cost_alu, @function
cost_alu:
	xorl %eax, %eax
	xorl %ecx, %ecx
	xorl %edx, %edx
	xorl %esi, %esi
	xorl %r8d, %r8d
	xorl %r9d, %r9d
	xorl %r10d, %r10d
	xorl %r11d, %r11d
1:	addq $1, %rax
	addq $1, %rcx
	addq $1, %rdx
	addq $1, %rsi
	addq $1, %r8
	addq $1, %r9
	addq $1, %r10
	addq $1, %r11
	decq %rdi
	jnz 1b
	ret
	.size cost_alu, . - cost_alu

/*
 * rdi = buf, rsi = len, rdx = reps; r8 = cursor, r9 = end.  body runs
 * once a line; tail once at the end (cost_nt's SFENCE).
 */
	.macro LINES name, body, tail=
	.globl \name
	.type \name, @function
\name:
	leaq (%rdi, %rsi), %r9
1:	movq %rdi, %r8
2:	\body
	addq $64, %r8
	cmpq %r9, %r8
	jb 2b
	decq %rdx
	jnz 1b
	\tail
	ret
	.size \name, . - \name
	.endm

	.macro LOAD8
	movq (%r8), %rax
	movq 8(%r8), %rcx
	movq 16(%r8), %r10
	movq 24(%r8), %r11
	movq 32(%r8), %rax
	movq 40(%r8), %rcx
	movq 48(%r8), %r10
	movq 56(%r8), %r11
	.endm

	.macro STORE8
	movq %rdx, (%r8)
	movq %rdx, 8(%r8)
	movq %rdx, 16(%r8)
	movq %rdx, 24(%r8)
	movq %rdx, 32(%r8)
	movq %rdx, 40(%r8)
	movq %rdx, 48(%r8)
	movq %rdx, 56(%r8)
	.endm

	.macro RMW
	movq (%r8), %rax
	STORE8
	.endm

	.macro NT8
	movnti %rdx, (%r8)
	movnti %rdx, 8(%r8)
	movnti %rdx, 16(%r8)
	movnti %rdx, 24(%r8)
	movnti %rdx, 32(%r8)
	movnti %rdx, 40(%r8)
	movnti %rdx, 48(%r8)
	movnti %rdx, 56(%r8)
	.endm

	.macro NT1FENCE
	movnti %rdx, (%r8)
	sfence
	.endm

	.macro REREAD
	movnti %rdx, (%r8)
	sfence
	movq (%r8), %rax
	.endm

	LINES cost_load, LOAD8
	LINES cost_load_line, "movq (%r8), %rax"
	LINES cost_store, STORE8
	LINES cost_store_line, "movq %rdx, (%r8)"
	LINES cost_rmw, RMW

	LINES cost_nt, NT8, sfence
	LINES cost_fence, NT1FENCE
	LINES cost_reread, REREAD

/* rdi = dst, rsi = src, rdx = len, rcx = reps */
	.globl cost_rep
	.type cost_rep, @function
cost_rep:
	movq %rdi, %r8
	movq %rsi, %r9
	movq %rcx, %r10
1:	movq %r8, %rdi
	movq %r9, %rsi
	movq %rdx, %rcx
	rep movsb
	decq %r10
	jnz 1b
	ret
	.size cost_rep, . - cost_rep

/* rdi = dst, rsi = src, rdx = len, rcx = reps */
	.globl cost_rep_short
	.type cost_rep_short, @function
cost_rep_short:
	movq %rdi, %r8
	movq %rsi, %r9
	movq %rcx, %r10
	shrq $2, %rdx
1:	movq %r8, %rdi
	movq %r9, %rsi
	movq %rdx, %rcx
	rep movsl
	decq %r10
	jnz 1b
	ret
	.size cost_rep_short, . - cost_rep_short

	.section .note.GNU-stack, "", @progbits
