#!/usr/bin/env bash
# A point program for the tests: sleeps $CEILING_SLOW_S seconds (default 1), then runs the point
# with ceiling ($CEILING_REAL). With `run --seeds`, a seed of 3 or more sleeps $CEILING_SLOWER_S
# (default: as long) instead.
seconds=${CEILING_SLOW_S:-1}
for a in "$@"; do last=$a; done
[ -n "${CEILING_SLOWER_S:-}" ] && [ "$last" -ge 3 ] 2>/dev/null && seconds=$CEILING_SLOWER_S
sleep "$seconds"
exec "$CEILING_REAL" "$@"
