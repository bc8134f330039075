/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: memcpy_64.S includes it but uses no errno value. */
