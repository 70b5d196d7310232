# Sourced by tools/sanitize.sh and tools/fuzz.sh: configures build-sanitize/, the one instrumented
# tree both use. clang with AddressSanitizer and UndefinedBehaviorSanitizer (overflow, float
# division by zero and float-to-integer overflow included, asserts on, every report fatal) and
# libFuzzer's coverage (CEILING_FUZZ), as a unity build (sources compiled in batches of 8, the heavy
# headers parsed once per batch; the few whose internal names clash compile alone) with line
# tables only: the sanitizer pass runs the test suite there, the fuzzers are built beside it.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCEILING_FUZZ=ON \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 > /dev/null
