/* SPDX-License-Identifier: GPL-2.0 */
/* record.h - the old name of record-write.h, until every producer uses it */
#include "record-write.h"
