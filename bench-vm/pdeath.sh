#!/bin/sh
# pdeath.sh CMD...: the second half of "setpriv --pdeathsig SIG sh
# pdeath.sh CMD...", which runs CMD so that it gets SIG when its parent
# dies, whatever kills the parent (SIGKILL, an OOM kill, a CI hard kill):
# the kernel's parent-death signal (prctl PR_SET_PDEATHSIG), armed by
# setpriv before this script runs, kept across the exec of CMD.
#
# PDEATH_PARENT is the pid of the parent that must be alive: a parent
# that died between its fork and setpriv's prctl never sends the signal,
# so after arming it this checks that the parent is still the one it was
# started by (its $PPID), and exits 125 when not.  It sets PDEATH_PARENT
# to its own pid, which is CMD's after the exec: a CMD that starts the
# next link of a chain the same way (timeout(1) starting QEMU) is checked
# against it in turn.
[ "$PPID" = "${PDEATH_PARENT:-}" ] || exit 125
PDEATH_PARENT=$$
export PDEATH_PARENT
exec "$@"
