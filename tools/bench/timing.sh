# Shared by the benchmark scripts: `timing_figures LOG` reads what `ceiling run --timing` wrote
# to stderr and prints "BUILD_S PER_ITERATION_S SIMGRID CLOSED SHARED": the machine's build, the
# mean wall time of the iterations after the warm-up, and per iteration the transfers through
# SimGrid, the flows timed in closed form and those shared out by the replay (older builds print
# no shared flows: 0).
timing_figures() {
  # "timing: build B s; iterations W0 W1 ... s"
  # "work: T transfers, F flows in closed form, S flows shared by the replay, C link copies,
  #  A clock advances in K iterations; transfer driver D"
  awk '/^timing:/ { b = $3; s = 0; k = 0; for (i = 7; i < NF; i++) { s += $i; k++ }; per = s / k }
       /^work:/ { k = 0; c = 0; h = 0
                  for (i = 1; i <= NF; i++) {
                    if ($i == "iterations;") k = $(i - 1)
                    if ($i == "closed") c = $(i - 3)
                    if ($i == "shared") h = $(i - 2)
                  }
                  t = $2 / k; c = c / k; h = h / k }
       END { printf "%s %s %.0f %.0f %.0f\n", b, per, t, c, h }' "$1"
}
