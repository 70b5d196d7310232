#!/usr/bin/env bash
# A point program for the tests: edits an input file of the sweep ($CEILING_EDIT_FILE), as a
# user might during a long sweep, then runs the point with ceiling ($CEILING_REAL).
echo "# edited during the sweep" >>"$CEILING_EDIT_FILE"
exec "$CEILING_REAL" "$@"
