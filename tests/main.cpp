// The one doctest main of the test programs. A run that names test cases (ctest's, one each)
// and selects none fails: a name that does not match (CMake cuts test names at ';') must not
// pass with nothing run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <string>
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
  bool named = false; // a test case or suite filter given (doctest's "dt-" prefixed forms too)
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    for (const std::string prefix : {"--dt-", "-dt-"})
      if (arg.starts_with(prefix))
        arg = prefix.substr(0, prefix.size() - 3) + arg.substr(prefix.size());
    for (std::string_view option : {"--test-case=", "-tc=", "--test-suite=", "-ts="})
      named = named || arg.starts_with(option);
  }
  if (named && selected_test_cases == 0) {
    std::cerr << "no test case matches the names given: nothing was run\n";
    return 1;
  }
  return 0;
}
