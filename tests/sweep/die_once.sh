#!/usr/bin/env bash
# A point program for the tests: the third point it is given dies by SIGKILL, as a worker killed
# by the kernel's out-of-memory killer would; the others run with ceiling ($CEILING_REAL). It
# counts the points in $CEILING_COUNT_FILE.
n=$(( $(cat "$CEILING_COUNT_FILE" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$CEILING_COUNT_FILE"
[ "$n" = 3 ] && kill -9 $$
exec "$CEILING_REAL" "$@"
