// SPDX-License-Identifier: GPL-2.0
/* record.c - the old name of record-write.c, until every build uses it */
#include "record-write.c"
