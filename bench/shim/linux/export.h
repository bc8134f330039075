/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: module exports mean nothing in user space. */
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
