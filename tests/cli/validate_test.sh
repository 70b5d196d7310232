#!/usr/bin/env bash
# `ceiling validate`: every bundled case runs and is compared; bad case files are refused with
# file, line and key.
set -u
ceiling=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/support/expect.sh"

cd "$root" || exit 1
expect 0 "30 cases, 89 points after the references: median |error|" -- "$ceiling" validate -j 2
# The table the README publishes is what the program predicts now, row for row, with its median
# and worst (tools/bench/validate_table.sh prints it as the README has it).
bash "$root/tools/bench/validate_table.sh" "$(dirname "$ceiling")/.." > "$tmp/table.md"
expect 0 "| GOYAL2017_RESNET50 |" -- cat "$tmp/table.md"
expect 1 "" -- bash -c "grep '^| ' '$tmp/table.md' | grep -vxF -f '$root/README.md'"
summary=$(grep -o '^[0-9]* points: median |error| [0-9.]* points, worst [-+0-9.]*' "$tmp/table.md")
expect 0 "" -- test -n "$summary"
expect 0 "$summary" -- cat "$root/README.md"
expect 0 '"median_abs_error_points"' -- "$ceiling" validate validation/TF_DGX1_P100_RESNET50.toml --json
expect 0 "no point after the reference" -- "$ceiling" validate validation/MLPERF_v07_RESNET50_DGX1.toml
# The JSON repeats each case's scaling mode.
expect 0 "scaling weak per-point-batch" -- python3 -c "
import json, subprocess, sys
cases = json.loads(subprocess.run([sys.argv[1], 'validate', 'validation/TF_DGX1_P100_RESNET50.toml',
                                   'validation/MLPERF_v07_RESNET50_DGXA100.toml', '--json'],
                                  capture_output=True, text=True, check=True).stdout)['cases']
print('scaling', *[c['scaling'] for c in cases])" "$ceiling"
# Each point says where its predicted iteration went: the breakdown adds up to the iteration,
# workers x batch / predicted throughput (the run's mean, averaged over ranks).
produce "$tmp/breakdown.json" -- "$ceiling" validate validation/TF_DGX1_P100_RESNET50.toml validation/HOROVOD_DOCS_VGG16.toml --json
expect 0 "breakdowns add up" -- python3 -c "
import json, sys
ok = True
for c in json.load(open('$tmp/breakdown.json'))['cases']:
    for p in c['points']:
        b = p['predicted_breakdown_s']
        iteration = p['workers'] * p['batch_per_worker'] / p['predicted_throughput']
        ok = ok and abs(sum(b.values()) / iteration - 1) < 1e-9 and b['compute'] > 0
ok = ok and any(p['predicted_breakdown_s']['communication'] > 0 for c in json.load(open('$tmp/breakdown.json'))['cases'] for p in c['points'])
print('breakdowns add up' if ok else 'breakdowns do not add up')"
# Same inputs, same table, whatever the jobs (three cases of three kinds: the full set runs above).
some=(validation/TF_DGX1_P100_RESNET50.toml validation/HOROVOD_DOCS_VGG16.toml
      validation/DLE_BERTLARGE_PRETRAIN_SEQ128_DGX2H_FP16.toml)
produce "$tmp/a.json" -- "$ceiling" validate "${some[@]}" -j 2 --json
produce "$tmp/b.json" -- "$ceiling" validate "${some[@]}" -j 1 --json
expect 0 "" -- cmp "$tmp/a.json" "$tmp/b.json"

# A point's own software stack and batch are the ones its run uses: the case's stack and batch
# named on every point instead predict the same.
sed -e 's/^software = "tf-parameter-server"$/software = "ideal"/' -e "s#^\(platform\|workload\) = \"#\1 = \"$root/validation/#" \
    -e 's/^batch = 64$/batch = 7/' -e 's/^scaling = .*$/scaling = "per-point-batch"/' \
    -e 's/^\(workers = [0-9]*\)$/\1\nsoftware = "tf-parameter-server"\nbatch = 64/' \
    validation/TF_DGX1_P100_RESNET50.toml > "$tmp/per_point.toml"
expect 0 'software = "ideal"' -- cat "$tmp/per_point.toml"
produce "$tmp/case.json" -- "$ceiling" validate validation/TF_DGX1_P100_RESNET50.toml --json
produce "$tmp/points.json" -- "$ceiling" validate "$tmp/per_point.toml" --json
grep predicted "$tmp/case.json" > "$tmp/case.txt"
grep predicted "$tmp/points.json" > "$tmp/points.txt"
expect 0 "" -- cmp "$tmp/case.txt" "$tmp/points.txt"
expect 0 "" -- test -s "$tmp/case.txt"
# and a point's batch is not ignored: a smaller one predicts another throughput.
sed 's/^batch = 64$/batch = 32/' "$tmp/per_point.toml" > "$tmp/small_batch.toml"
produce "$tmp/small.json" -- "$ceiling" validate "$tmp/small_batch.toml" --json
grep predicted "$tmp/small.json" > "$tmp/small.txt"
expect 0 "" -- test -s "$tmp/small.txt"
expect 1 "" -- cmp -s "$tmp/case.txt" "$tmp/small.txt"

# A point's own options follow the case's: the case's options given on every point instead predict the
# same, and options given on one point only change that point.
sed -e "s#^\(platform\|workload\) = \"#\1 = \"$root/validation/#" -e 's/^options = .*$/options = []/' \
    -e 's/^\(workers = [0-9]*\)$/\1\noptions = ["--collective", "ring", "--set", "software.fusion=by-cycle"]/' \
    validation/HOROVOD_DOCS_VGG16.toml > "$tmp/point_options.toml"
produce "$tmp/case_options.json" -- "$ceiling" validate validation/HOROVOD_DOCS_VGG16.toml --json
produce "$tmp/point_options.json" -- "$ceiling" validate "$tmp/point_options.toml" --json
grep predicted "$tmp/case_options.json" > "$tmp/case_options.txt"
grep predicted "$tmp/point_options.json" > "$tmp/point_options.txt"
expect 0 "" -- test -s "$tmp/case_options.txt"
expect 0 "" -- cmp "$tmp/case_options.txt" "$tmp/point_options.txt"
awk '/^options = \["--collective", "ring", "--set", "software.fusion=by-cycle"\]$/ && ++n == 2 {
       print "options = [\"--collective\", \"ring\", \"--set\", \"software.fusion=by-cycle\", \"--overlap\", \"off\"]"; next} {print}' \
    "$tmp/point_options.toml" > "$tmp/one_point.toml"
produce "$tmp/one_point.json" -- "$ceiling" validate "$tmp/one_point.toml" --json
expect 0 "" -- python3 -c "
import json, sys
a = [p['predicted_throughput'] for p in json.load(open('$tmp/one_point.json'))['cases'][0]['points']]
b = [float(l.split(':')[1].strip(' ,\n')) for l in open('$tmp/case_options.txt') if 'predicted_throughput' in l]
sys.exit(0 if a[0] == b[0] and a[2] == b[2] and a[1] < b[1] else 1)"

# Bad case files, each refused at its key: `edited NAME CASE SED` writes $tmp/NAME.toml, the bundled
# CASE edited by SED, its platform and workload made absolute so that it loads from $tmp.
absolute="s#^\(platform\|workload\) = \"#\1 = \"$root/validation/#"
edited() { sed -e "$3" -e "$absolute" "validation/$2.toml" > "$tmp/$1.toml"; echo "$tmp/$1.toml"; }
# `refused NAME CASE SED MESSAGE`: the edited case is refused with MESSAGE (exit 2).
refused() { local f; f=$(edited "$1" "$2" "$3"); expect 2 "$4" -- "$ceiling" validate "$f"; }
f=$(edited zero_batch TF_DGX1_P100_RESNET50 's/^workers = 2$/workers = 2\nbatch = 0/')
expect 2 "zero_batch.toml:" -- "$ceiling" validate "$f"
expect 2 "measured[1].batch: must be between 1 and 10000000, got 0" -- "$ceiling" validate "$f"
# The scaling mode says whether points give their own batch: weak refuses one, per-point-batch
# needs one that differs; an unknown mode is named with the choices.
refused weak_batch TF_DGX1_P100_RESNET50 's/^workers = 2$/workers = 2\nbatch = 32/' \
  "weak_batch.toml:25:9: error: measured[1].batch: scaling = \"weak\" runs the case's batch at every point"
refused no_point_batch TF_DGX1_P100_RESNET50 's/^scaling = .*$/scaling = "per-point-batch"/' \
  "no_point_batch.toml:16:11: error: case.scaling: \"per-point-batch\", but no point gives a batch other than the case's"
refused strong TF_DGX1_P100_RESNET50 's/^scaling = .*$/scaling = "strong"/' "strong.toml:16:11: error: case.scaling: unknown value \"strong\": expected one of \"weak\", \"per-point-batch\""
refused bad_options TF_DGX1_P100_RESNET50 's/^workers = 2$/workers = 2\noptions = ["--overlap", 1]/' \
  "expected strings only"
# A refusal of the run that names an option or a file of the case is placed at that key.
refused servers_option TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--servers", "100"]/' \
  "servers_option.toml:17:11: error: case.options: the run of 1 worker refused the case's input: --servers: "
# A --set of the case's options is placed at the options, and the servers validate gives from
# servers_per_node at that key.
refused set_option TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--set", "node.nic.bandwidth=-1 GB\/s"]/' \
  "set_option.toml:17:11: error: case.options: the run of 1 worker refused the case's input: --set:1:20: error: node.nic.bandwidth: "
# (a refusal that names the override's key, "--set KEY: ...", too)
refused set_shadowed TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--set", "software.jitter=0.1", "--jitter", "0.2"]/' \
  "set_shadowed.toml:17:11: error: case.options: the run of 1 worker refused the case's input: --set software.jitter: --jitter sets it"
refused servers_per_node TF_DGX1_P100_VGG16 's/^options = \[\]$/servers_per_node = 2\noptions = []/' \
  "servers_per_node.toml:17:20: error: case.servers_per_node: the run of 1 worker refused the case's input: --servers: "
refused no_source TF_DGX1_P100_VGG16 's/^source = .*$/source = ""/' \
  "no_source.toml:10:10: error: case.source: empty: expected where the figures come from"
refused folder_platform TF_DGX1_P100_VGG16 's|^platform = .*$|platform = "platforms"|' \
  "folder_platform.toml:11:12: error: case.platform: a folder, not a file: $root/validation/platforms"
refused hpc_workload TF_DGX1_P100_VGG16 's|^workload = .*$|workload = "../workloads/hpl.toml"|' \
  "hpc_workload.toml:12:12: error: case.workload: the run of 1 worker refused the case's input: $root/workloads/hpl.toml:9:8: error: workload.kind: this is an HPC workload"
f=$(edited descending TF_DGX1_P100_RESNET50 's/^workers = 2$/workers = 1/')
expect 2 "descending.toml:" -- "$ceiling" validate "$f"
expect 2 "points must come in ascending workers, got 1 after 1" -- "$ceiling" validate "$f"
refused partial TF_DGX1_P100_RESNET50 's/^workers = 8$/workers = 12/' \
  "12 workers do not fill whole nodes of 8"
refused empty TF_DGX1_P100_RESNET50 's/^throughput = 422 .*$//' \
  "give the measured throughput (samples/s) or the efficiency the source reports"
# A point of a throughput series may give the efficiency its source reports too: it stands as given
# (the data's rule), the throughput still gives the ratio. Expectation: measured E 0.96 exactly, reported.
f=$(edited both TF_DGX1_P100_RESNET50 's/^throughput = 422 .*$/throughput = 422\nefficiency = 0.96/')
produce "$tmp/both.json" -- "$ceiling" validate "$f" --json
expect 0 "" -- python3 -c "
import json, sys
p = json.load(open('$tmp/both.json'))['cases'][0]['points']
ok = p[1]['measured_efficiency'] == 0.96 and p[1]['measured_efficiency_reported'] and p[1]['measured_throughput'] == 422
ok = ok and not p[2]['measured_efficiency_reported'] and abs(p[2]['measured_efficiency'] - (p[2]['measured_throughput'] / 4) / (p[0]['measured_throughput'] / 1)) < 1e-12
sys.exit(0 if ok else 1)"
refused mixed TF_DGX1_P100_RESNET50 's/^throughput = 422 .*$/efficiency = 0.96/' \
  "measured[1].efficiency: the first point gives a throughput: give a throughput at every point"
refused reference HOROVOD_DOCS_VGG16 's/^efficiency = 1.0 .*$/efficiency = 0.9/' \
  "measured[0].efficiency: the first point is the reference of the efficiencies: give it efficiency = 1"
refused reserved TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--iterations", "9"]/' \
  'reserved.toml:17:12: error: case.options[0]: "--iterations" is set by `ceiling validate` itself'
refused short TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["-n2"]/' \
  'short.toml:17:12: error: case.options[0]: "-n2" is set by `ceiling validate` itself'
# (an abbreviation is no option: every command line takes options written in full)
refused abbreviated TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--iter=9"]/' \
  "abbreviated.toml:17:11: error: case.options: not options \`ceiling run\` takes: --iter=9: unknown option (did you mean \"--iterations\"?)"
# (a point's options too, at their place, before any point runs)
refused unknown_point TF_DGX1_P100_VGG16 's/^workers = 2$/workers = 2\noptions = ["--frob"]/' \
  "unknown_point.toml:25:11: error: measured[1].options: not options \`ceiling run\` takes: --frob: unknown option"
# (options as `ceiling run` parses and stores them: a value of the wrong kind, a stray word, an option twice)
refused bad_value TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--jitter", "abc"]/' \
  "bad_value.toml:17:11: error: case.options: not options \`ceiling run\` takes: --jitter: expected a number"
# (run's --jobs, which goes with --seeds, is named as such)
refused jobs TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--jobs", "2"]/' \
  "jobs.toml:17:11: error: case.options: \"--jobs\" is an option of \`ceiling run\` with --seeds, which a case may not give"
refused stray TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["stray"]/' \
  "stray.toml:17:11: error: case.options: not options \`ceiling run\` takes:"
refused twice TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--staging", "host", "--staging", "direct"]/' \
  "twice.toml:17:11: error: case.options: not options \`ceiling run\` takes:"
# An empty validation/ folder is an error, not a table of no case.
mkdir -p "$tmp/empty/validation"
cd "$tmp/empty" && expect 2 "validation/ holds no case file" -- "$ceiling" validate
cd "$root" || exit 1
refused repeated TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--staging", "host"]/; s/^workers = 2$/workers = 2\noptions = ["--staging=direct"]/' \
  'repeated.toml:25:12: error: measured[1].options[0]: "--staging=direct": the case'"'"'s options give --staging already'
# (but --set, which `ceiling run` takes repeatedly, may come in both)
f=$(edited sets TF_DGX1_P100_VGG16 's/^options = \[\]$/options = ["--set", "software.jitter=0.01"]/; s/^workers = 2$/workers = 2\noptions = ["--set", "software.jitter=0.02"]/')
expect 0 "TF_DGX1_P100_VGG16" -- "$ceiling" validate "$f"
refused stack TF_DGX1_P100_VGG16 's/^software = .*$/software = "horovod-ncc"/' \
  'case.software: "horovod-ncc" is neither a bundled stack ('
cp validation/TF_DGX1_P100_VGG16.toml "$tmp/relative.toml"
expect 2 "relative.toml:" -- "$ceiling" validate "$tmp/relative.toml"
expect 2 "case.platform: no such file: $tmp/platforms/" -- "$ceiling" validate "$tmp/relative.toml"
# A gpus_per_node that is not the platform's GPUs per node would simulate other GPU counts: refused.
f=$(edited gpus TF_DGX1_P100_VGG16 's/^gpus_per_node = 8$/gpus_per_node = 4/')
expect 2 "gpus.toml:14:17: error: case.gpus_per_node: the run of measured[2] simulated 8 ranks for 4 workers: gpus_per_node = 4 must be the GPUs of a node of" -- "$ceiling" validate "$f" -j 1
# A point whose run refuses the case's input is said at its [[measured]] entry.
refused nodes TF_DGX1_P100_VGG16 's/^workers = 8$/workers = 16/' \
  "nodes.toml:31:1: error: measured[3]: the run of 16 workers refused the case's input: --nodes: the machine dgx1-p100 has 1 node,"
# A case given twice (or two files of one id) is refused: the medians would count it twice.
expect 2 "case id TF_DGX1_P100_VGG16 is validation/TF_DGX1_P100_VGG16.toml's too" -- "$ceiling" validate TF_DGX1_P100_VGG16 TF_DGX1_P100_VGG16
# A case of one point compares no efficiency: no median, none in JSON.
expect 0 "1 case, no point after the references: no efficiency to compare" -- "$ceiling" validate MLPERF_v07_RESNET50_DGX1
expect 0 '"median_abs_error_points": null' -- "$ceiling" validate MLPERF_v07_RESNET50_DGX1 --json
expect 2 "nope.toml: error: cannot open the file for reading" -- "$ceiling" validate nope.toml
# Interrupted, it prints every point that finished: as many rows as it says on stderr, and a case
# cut short says so (however far the run got in its second).
"$ceiling" validate DAINT_TF11_INCEPTIONV3_SYNTH -j 1 >"$tmp/cut.txt" 2>"$tmp/cut.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
status=$?
expect 0 "rows as said" -- /usr/bin/python3 -c "
import re, sys
status, out, err = int(sys.argv[1]), open(sys.argv[2]).read(), open(sys.argv[3]).read()
rows = len(re.findall(r'^DAINT_TF11_INCEPTIONV3_SYNTH +[0-9]+ ', out, re.M))
if status == 0:
    assert rows == 8, rows
else:
    assert status == 130, status
    done = int(re.search(r'([0-9]+) of 8 points finished', err).group(1))
    assert rows == done, (rows, done)
    assert (0 < done < 8) == ('interrupted: %d of its 8 points' % done in out), out
print('rows as said', status, rows)" "$status" "$tmp/cut.txt" "$tmp/cut.err"
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere" || exit 1
expect 2 "no case given and no validation/ folder here" -- "$ceiling" validate
mkdir -p validation/folder.toml
expect 2 "validation/folder.toml: error: not a regular file" -- "$ceiling" validate folder

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
