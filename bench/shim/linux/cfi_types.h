/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: no kCFI type hashes in user space (linkage.h maps the macro). */
