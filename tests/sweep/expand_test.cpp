// Experiments expanded into points, point results as text, digests.
#include "config/experiment_file.hpp"
#include "support/edit_text.hpp"
#include "sweep/expand.hpp"
#include "sweep/point_codec.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace ceiling;

namespace {

// Line numbers matter: the error tests pin FILE:LINE:COL.
const std::string experiment = R"([experiment]
title = "t"
question = "q"
nodes = { from = 1, to = 64, factor = 4 }
scaling = ["weak", "strong"]
global_batch = 256
seeds = [3, 4]

[[platforms]]
name = "ft"
file = "../platforms/generic-fat-tree.toml"
set = ["interconnect.link_bandwidth=5 GB/s"]

[[workloads]]
name = "rn"
file = "../workloads/resnet50_v1.toml"
batch = 32

[[variants]]
name = "hd"
options = { collective = "halving-doubling", "fusion-threshold" = "16 MiB" }
)";

const std::string here = CEILING_SOURCE_DIR "/experiments/test.toml";

std::string error_of(const std::string& text) {
  return testing::error_of([&] { config::load_experiment_text(text, "e.toml"); });
}

/// The error of `text` read as the experiment at `here` (its files found beside it).
std::string error_here(const std::string& text) {
  return testing::error_of([&] { config::load_experiment_text(text, here); });
}

/// The experiment with its variant's `set` = `set` (a TOML array's text).
std::string with_variant_set(const std::string& set) {
  return testing::edited(experiment, "options = { collective", "set = " + set + "\noptions = { collective");
}

} // namespace

TEST_CASE("an experiment expands to scalings x platforms x workloads x variants curves") {
  const auto e = config::load_experiment_text(experiment, here);
  CHECK(e.nodes == std::vector<long long>{1, 4, 16, 64});
  CHECK(e.output == "out/test.h5");
  const auto x = sweep::expand(e);
  // Expectation: 2 scalings x 1 x 1 x 1 curves, each 4 node counts x 2 seeds.
  REQUIRE(x.curves.size() == 2);
  CHECK(x.curves[0].id == "ft / rn / hd / weak");
  CHECK(x.curves[1].scaling == analysis::Scaling::Strong);
  REQUIRE(x.points.size() == 16);
  const std::string platform = CEILING_SOURCE_DIR "/platforms/generic-fat-tree.toml";
  const std::string workload = CEILING_SOURCE_DIR "/workloads/resnet50_v1.toml";
  CHECK(x.points[3].run_args ==
        std::vector<std::string>{"--platform", platform, "--workload", workload, "--nodes", "4",
                                 "--seed", "4", "--iterations", "3", "--batch", "32", "--set",
                                 "interconnect.link_bandwidth=5 GB/s", "--collective",
                                 "halving-doubling", "--fusion-threshold", "16 MiB"});
  CHECK(x.points[8].run_args[10] == "--global-batch");
  CHECK(x.points[8].run_args[11] == "256");
  for (std::size_t i = 0; i < x.points.size(); ++i) {
    CAPTURE(i);
    CHECK(x.points[i].index == static_cast<int>(i));
    CHECK(x.points[i].curve == static_cast<int>(i / 8));
  }
  // Fewest nodes first, then in index order.
  const auto order = sweep::run_order(x.points);
  CHECK(order[0] == 0);
  CHECK(order[1] == 1);
  CHECK(order[2] == 8);
  CHECK(order.back() == 15);
}

TEST_CASE("an experiment without variants has one, the baseline") {
  const std::string text = testing::edited(
      experiment,
      "[[variants]]\nname = \"hd\"\noptions = { collective = \"halving-doubling\", "
      "\"fusion-threshold\" = \"16 MiB\" }\n",
      "");
  const auto e = config::load_experiment_text(text, here);
  REQUIRE(e.variants.size() == 1);
  CHECK(e.variants[0].name == "baseline");
  CHECK(e.variants[0].run_args.empty());
}

TEST_CASE("a bad experiment names file, line, column and key") {
  CHECK(error_of(testing::edited(experiment, "factor = 4", "factor = 1")) ==
        "e.toml:4:39: error: experiment.nodes.factor: must be between 2 and 1024, got 1");
  CHECK(error_of(testing::edited(experiment, "nodes = { from = 1, to = 64, factor = 4 }",
                                 "nodes = [4, 2]")) ==
        "e.toml:4:13: error: experiment.nodes[1]: node counts must be distinct and ascending, got 2 "
        "after 4");
  CHECK(error_of(testing::edited(experiment, "\"strong\"]", "\"strnog\"]")) ==
        "e.toml:5:20: error: experiment.scaling[1]: expected \"weak\" or \"strong\", got \"strnog\"");
  // A batch no curve would use: global_batch without strong scaling, batch without weak.
  CHECK(error_of(testing::edited(experiment, "[\"weak\", \"strong\"]", "[\"weak\"]")) ==
        "e.toml:6:16: error: experiment.global_batch: sets the strong curves' global batch, but scaling has no "
        "\"strong\": remove it or add \"strong\"");
  CHECK(error_of(testing::edited(experiment, "[\"weak\", \"strong\"]", "[\"strong\"]")) ==
        "e.toml:17:9: error: workloads[0].batch: sets the weak curves' batch per rank, but scaling has no "
        "\"weak\": remove it or add \"weak\"");
  // Nor one that every workload replaces with its own.
  CHECK(error_of(testing::edited(experiment, "batch = 32", "batch = 32\nglobal_batch = 512")) ==
        "e.toml:6:16: error: experiment.global_batch: every workload gives its own global_batch, so this one is "
        "used by none: remove it");
  CHECK(error_of(testing::edited(experiment, "global_batch = 256", "global_batch = 256\nbatch = 8")) ==
        "e.toml:7:9: error: experiment.batch: every workload gives its own batch, so this one is used by none: "
        "remove it");
  CHECK(error_of(testing::edited(experiment, "seeds", "seeda")) ==
        "e.toml:7:1: error: experiment.seeda: unknown key (did you mean \"seeds\"?)");
  CHECK(error_of(testing::edited(experiment, "seeds = [3, 4]", "seeds = [3, 4, 3]")) ==
        "e.toml:7:16: error: experiment.seeds[2]: seed 3 is listed twice");
  CHECK(error_of(testing::edited(experiment, "name = \"hd\"", "name = \"\"")) ==
        "e.toml:20:8: error: variants[0].name: must not be empty: it labels the curves");
  CHECK(error_of(testing::edited(experiment, "set = [\"interconnect", "set = [\"\"\"a\nb\"\"\", \"interconnect")) ==
        "e.toml:12:7: error: platforms[0].set: a line break in \"a...\" is not supported: write "
        "each override on one line");
  CHECK(error_of(testing::edited(experiment, "name = \"hd\"", "name = \"hd\"\nnmae = 1")) ==
        "e.toml:21:1: error: variants[0].nmae: unknown key (did you mean \"name\"?)");
}

TEST_CASE("an override that does not load is reported at its element of the entry's set") {
  const std::string error = error_here(testing::edited(experiment, "link_bandwidth=5 GB/s", "link_bandwidth=5"));
  CAPTURE(error);
  CHECK(error.starts_with(here + ":12:8: error: platforms[0].set[0]: interconnect.link_bandwidth: missing unit"));
}

TEST_CASE("a variant's override that does not load is reported at its element, with the entry it fails on") {
  const std::string error = error_here(with_variant_set("[\"node.nic.latency_us=2\", \"node.nic.fooo=1\"]"));
  CAPTURE(error);
  CHECK(error.starts_with(here + ":21:33: error: variants[0].set[1]: with platforms[0] \"ft\": node.nic.fooo: unknown key"));
}

TEST_CASE("of two overrides of one key, the last, which wins, is the one reported") {
  const std::string error =
      error_here(with_variant_set("[\"node.nic.latency=\\\"2 us\\\"\", \"node.nic.latency=\\\"-1 us\\\"\"]"));
  CAPTURE(error);
  CHECK(error.starts_with(here + ":21:37: error: variants[0].set[1]: with platforms[0] \"ft\": node.nic.latency: must not be "
                                 "negative"));
}

TEST_CASE("a platform file that does not load is reported at its entry") {
  const std::string error = error_here(testing::edited(experiment, "generic-fat-tree.toml", "no-such-platform.toml"));
  CAPTURE(error);
  CHECK(error.starts_with(here + ":9:1: error: platforms[0]: does not load: "));
}

TEST_CASE("a point result survives its text form bit for bit") {
  sweep::PointResult r{.ok = true,
                       .error = "two\nlines \\ and a backslash",
                       .ranks = 4096,
                       .batch_per_rank = 2,
                       .iteration_time_s = 0.1 + 0.2, // not exactly representable in decimal
                       .warmup_time_s = std::numeric_limits<double>::denorm_min(),
                       .iteration_time_min_s = 1.0 / 3.0,
                       .iteration_time_max_s = 1e300,
                       .samples_per_iteration = 8192,
                       .bytes_host_memory = -0.0};
  std::string problem;
  const auto back = sweep::decode(sweep::encode(r), problem);
  REQUIRE(back);
  CHECK(*back == r);
  CHECK(std::signbit(back->bytes_host_memory));
  SUBCASE("text that is not a result is refused with the reason") {
    CHECK_FALSE(sweep::decode("hello", problem));
    CHECK(problem == "the output does not start with \"ceiling-point 1\"");
    std::string text = sweep::encode(r);
    text.replace(text.find("ranks 4096"), 10, "ranks x");
    CHECK_FALSE(sweep::decode(text, problem));
    CHECK(problem == "the field ranks is not an integer: \"x\"");
    CHECK_FALSE(sweep::decode(sweep::encode(r) + "extra 1\n", problem));
    CHECK(problem == "the output has fields this version does not know");
  }
  SUBCASE("a finished point whose numbers no run gives is refused (a wrapper's, a damaged file's)") {
    auto bad = r;
    bad.iteration_time_s = std::nan("");
    CHECK_FALSE(sweep::decode(sweep::encode(bad), problem));
    CHECK(problem == "iteration_time_s of a finished point is nan: expected a finite number, 0 or more");
    bad = r;
    bad.compute_s = -5;
    CHECK(sweep::result_problem(bad) == "compute_s of a finished point is -5: expected a finite number, 0 or more");
    bad = r;
    bad.ranks = 0;
    CHECK(sweep::result_problem(bad) == "a finished point has 0 ranks of 2 samples: expected 1 or more of each");
    bad = r;
    bad.samples_per_iteration = 0;
    CHECK(sweep::result_problem(bad) == "samples_per_iteration of a finished point is 0: expected the samples of an iteration");
    bad = r;
    bad.does_not_fit = true;
    CHECK(sweep::result_problem(bad) == "a point is finished (ok) or does not fit, not both");
    // (a failed point's numbers are zeros, and say nothing)
    CHECK_FALSE(sweep::result_problem(sweep::PointResult{.error = "x"}));
  }
}

TEST_CASE("digests tell texts apart and are the same on every run") {
  const std::vector<std::string> ab_c{"ab", "c"}, a_bc{"a", "bc"}, again{"ab", "c"};
  CHECK(sweep::digest(ab_c) == sweep::digest(again));
  CHECK(sweep::digest(ab_c) != sweep::digest(a_bc));
  CHECK(sweep::digest(ab_c).size() == 16);
  // Expectation: FNV-1a 64 of the empty list is the offset basis; of {"ab", "c"}, FNV-1a 64 of the
  // bytes 'a' 'b', the length 2 in 8 little-endian bytes, 'c', the length 1 in 8 (computed apart).
  CHECK(sweep::digest(std::vector<std::string>{}) == "cbf29ce484222325");
  CHECK(sweep::digest(ab_c) == "5091916f8ceeb7b0");
}
