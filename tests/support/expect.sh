# Shared by the shell tests: `expect STATUS PATTERN -- COMMAND...` runs COMMAND, checks its exit
# status and that its output (stdout and stderr) contains PATTERN (a fixed string); the caller
# prints "$passes passed, $failures failed" at the end.
failures=0
passes=0

expect() {
  local status=$1 pattern=$2
  shift 3
  local out
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" -ne "$status" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: $* (exit $got, wanted $status and \"$pattern\")"
    echo "$out" | head -5 | sed 's/^/    /'
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

# `produce FILE -- COMMAND...` runs COMMAND with its stdout into FILE and counts a failure unless
# it exits 0 and writes something, so that the comparisons of FILE that follow compare outputs,
# not the empty files of commands that failed.
produce() {
  local file=$1
  shift 2
  local err
  err=$("$@" 2>&1 >"$file")
  local got=$?
  if [ "$got" -ne 0 ] || [ ! -s "$file" ]; then
    echo "FAIL: $* (exit $got, wanted 0 and some output in $file)"
    echo "$err" | head -5 | sed 's/^/    /'
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}
