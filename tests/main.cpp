// The one doctest main of the test programs. A run that names test cases (ctest's, one each)
// and selects none fails: a name that does not match (CMake cuts test names at ';') must not
// pass with nothing run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <string_view>

namespace {

unsigned selected_test_cases = 0;

/// Counts the test cases the run's filters selected; reports nothing.
struct SelectedCount : doctest::IReporter {
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { selected_test_cases = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
DOCTEST_REGISTER_LISTENER("selected-count", 1, SelectedCount);

} // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  if (context.shouldExit() || failed != 0)
    return failed;
  // A test case, suite or source file filter given: doctest takes any number of leading
  // dashes, and an optional "dt-" after them.
  bool named = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    arg.remove_prefix(std::min(arg.find_first_not_of('-'), arg.size()));
    if (arg.starts_with("dt-"))
      arg.remove_prefix(3);
    for (std::string_view option : {"test-case=", "tc=", "test-suite=", "ts=", "source-file=", "sf="})
      named = named || arg.starts_with(option);
  }
  if (named && selected_test_cases == 0) {
    std::cerr << "no test case matches the names given: nothing was run\n";
    return 1;
  }
  return 0;
}
