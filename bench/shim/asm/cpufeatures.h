/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for asm/cpufeatures.h: a feature is not a bit number here but
 * the 0/1 value of the simulated feature set, given as -DBENCH_ERMS=0|1
 * -DBENCH_FSRM=0|1, which asm/alternative.h turns into gas .if tests.
 * A feature the shim does not know is left undefined, so the assembler
 * stops on it instead of silently taking a branch.
 */
#define X86_FEATURE_ERMS BENCH_ERMS
#define X86_FEATURE_FSRM BENCH_FSRM
