// Software files: TensorFlow's per-variable exchanges and when the variables come back, and the
// combinations a per-variable exchange refuses, each at its key.
#include "support/edit_text.hpp"
#include "support/relative.hpp"
#include "config/software_file.hpp"

#include <doctest/doctest.h>

using namespace ceiling;

namespace {

// Line numbers matter: the error tests pin FILE:LINE:COL.
const std::string per_variable = R"([software]
name = "ps"
library = "none"
collective = "parameter-server"
collective_launch = "0 s"
reducer = "none"
exchange = "per-variable"
pull = "next-forward"
)";

std::string error_of(const std::string& text) {
  return testing::error_of([&] { config::load_software_text(text, "software/bad.toml"); });
}

} // namespace

TEST_CASE("TensorFlow's stacks exchange each variable on its own, parameter_server mode reads them at the next step") {
  const auto ps = config::load_software("tf-parameter-server");
  CHECK(ps.exchange == stack::Exchange::PerVariable);
  CHECK(ps.pull == stack::Pull::NextForward);
  const auto replicated = config::load_software("tf-distributed-replicated");
  CHECK(replicated.exchange == stack::Exchange::PerVariable);
  CHECK(replicated.pull == stack::Pull::AfterPush);
  // The collective libraries' stacks take turns with fused buckets, as before.
  const auto horovod = config::load_software("horovod-mpi");
  CHECK(horovod.exchange == stack::Exchange::Buckets);
  CHECK(horovod.pull == stack::Pull::AfterPush);
  const auto s = config::load_software_text(per_variable, "software/ok.toml");
  CHECK(s.exchange == stack::Exchange::PerVariable);
  CHECK(s.pull == stack::Pull::NextForward);
}

TEST_CASE("a stack that names no launch or reducer pays neither, as the ideal stack") {
  const std::string minimal = "[software]\nname = \"m\"\nlibrary = \"mpich\"\ncollective = \"auto\"\n"
                              "fusion_threshold = \"64 MiB\"\n";
  const auto s = config::load_software_text(minimal, "software/ok.toml");
  CHECK(s.collective_launch.seconds() == 0);
  CHECK(s.reducer == stack::Reducer::None);
  const auto ideal = config::load_software("ideal");
  CHECK(ideal.collective_launch == s.collective_launch);
  CHECK(ideal.reducer == s.reducer);
  // Given, they are read and checked as before.
  CHECK(config::load_software_text(minimal + "collective_launch = \"2 us\"\nreducer = \"device\"\n", "software/ok.toml")
            .reducer == stack::Reducer::Device);
  CHECK(error_of(minimal + "collective_launch = \"-1 us\"\n").find("software/bad.toml:6:21") != std::string::npos);
}

TEST_CASE("a stack overlaps its collectives with backward unless it says overlap = false, as TensorFlow's NCCL replication") {
  CHECK(config::load_software_text(per_variable, "software/ok.toml").overlap);
  CHECK(config::load_software("horovod-nccl").overlap);
  CHECK_FALSE(config::load_software("tf-replicated-nccl").overlap);
  CHECK_FALSE(config::load_software_text(per_variable + "overlap = false\n", "software/ok.toml").overlap);
  CHECK(error_of(per_variable + "overlap = \"no\"\n").find("software/bad.toml:9:11") != std::string::npos);
}

TEST_CASE("a per-variable exchange refuses fusion, other collectives, cycles, negotiation and launches, each at its key") {
  const std::string refuses = "(TensorFlow's sends to parameter servers) ";
  struct Case {
    std::string from, to, error;
  };
  const Case cases[] = {
      {"pull", "fusion_threshold = \"64 MiB\"\npull",
       "8:20: error: software.fusion_threshold: exchange = \"per-variable\" exchanges every layer's variables on "
       "their own: nothing is fused, remove the key"},
      {"\"parameter-server\"", "\"ring\"",
       "4:14: error: software.collective: exchange = \"per-variable\" " + refuses +
           "needs collective = \"parameter-server\""},
      {"pull", "cycle = \"5 ms\"\npull",
       "8:9: error: software.cycle: exchange = \"per-variable\" " + refuses +
           "has no framework cycle: expected \"0 s\" or no key"},
      {"pull", "negotiation = true\npull",
       "8:15: error: software.negotiation: exchange = \"per-variable\" " + refuses +
           "has no negotiation: expected false or no key"},
      {"\"0 s\"", "\"10 us\"",
       "5:21: error: software.collective_launch: exchange = \"per-variable\" " + refuses +
           "launches no collective: expected \"0 s\""},
      {"pull", "first_bucket = \"1 MiB\"\npull",
       "8:16: error: software.first_bucket: exchange = \"per-variable\" " + refuses + "has no buckets: remove the key"},
      {"pull", "fusion = \"by-cycle\"\npull",
       "8:10: error: software.fusion: \"by-cycle\" fuses what every rank has ready at each tick of a framework cycle "
       "(Horovod): it needs a cycle (such as cycle = \"5 ms\")"},
      {"\"per-variable\"", "\"per-tensor\"",
       "7:12: error: software.exchange: expected one of buckets, per-variable, got \"per-tensor\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.to);
    CHECK(error_of(testing::edited(per_variable, c.from, c.to)) == "software/bad.toml:" + c.error);
  }
}

TEST_CASE("reading the variables at the next forward needs the per-variable exchange and no local aggregation") {
  using testing::edited;
  const std::string buckets = edited(per_variable, "exchange = \"per-variable\"", "fusion_threshold = \"64 MiB\"");
  CHECK(error_of(buckets) ==
        "software/bad.toml:8:8: error: software.pull: \"next-forward\" reads each variable as the forward pass "
        "needs it, which needs exchange = \"per-variable\"");
  CHECK(error_of(edited(per_variable, "pull", "local_aggregation = true\npull")) ==
        "software/bad.toml:9:8: error: software.pull: \"next-forward\" with local_aggregation is not modelled (the "
        "GPUs of a worker would read the variables from its CPU): expected \"after-push\"");
  CHECK(error_of(edited(per_variable, "\"next-forward\"", "\"later\"")) ==
        "software/bad.toml:8:8: error: software.pull: expected one of after-push, next-forward, got \"later\"");
}

TEST_CASE("TensorFlow's parameter servers hold the embedding tables, and a file that sends rows to servers without them is refused at its key") {
  CHECK(config::load_software("tf-parameter-server").sparse == stack::SparseGradients::Servers);
  CHECK(config::load_software("tf-distributed-replicated").sparse == stack::SparseGradients::AllGather);
  CHECK(config::load_software_text(per_variable + "sparse_gradients = \"servers\"\n", "software/ok.toml").sparse ==
        stack::SparseGradients::Servers);
  const std::string ring = testing::edited(testing::edited(per_variable, "exchange = \"per-variable\"\npull = \"next-forward\"\n",
                                                           "fusion_threshold = \"64 MiB\"\n"),
                                           "\"parameter-server\"", "\"ring\"");
  CHECK(error_of(ring + "sparse_gradients = \"servers\"\n") ==
        "software/bad.toml:8:20: error: software.sparse_gradients: \"servers\" sends the embedding tables' rows to and "
        "from the parameter servers that hold them, but the collective is not \"parameter-server\": expected "
        "\"allgather\", \"dense\" or \"cheaper\"");
  const std::string replicated = testing::edited(per_variable, "\"next-forward\"", "\"after-push\"");
  CHECK(error_of(replicated + "local_aggregation = true\nsparse_gradients = \"servers\"\n") ==
        "software/bad.toml:10:20: error: software.sparse_gradients: \"servers\" with local_aggregation is not modelled "
        "(a worker's GPUs would first combine their rows): expected \"allgather\", \"dense\" or \"cheaper\"");
  CHECK(error_of(replicated + "sparse_gradients = \"servers\"\n") ==
        "software/bad.toml:9:20: error: software.sparse_gradients: \"servers\" reads the rows each step looks up from the "
        "tables' servers, as TensorFlow's embedding_lookup does, which needs pull = \"next-forward\" (and exchange = "
        "\"per-variable\"): expected \"allgather\", \"dense\" or \"cheaper\", or those keys");
  CHECK(error_of(per_variable + "sparse_gradients = \"server\"\n") ==
        "software/bad.toml:9:20: error: software.sparse_gradients: expected one of allgather, dense, cheaper, servers, got "
        "\"server\" (did you mean \"servers\"?)");
}

TEST_CASE("a stack's jitter is 0 unless it gives one from 0 to 10, the framework stacks give tf_cnn_benchmarks' step spread") {
  CHECK(config::load_software_text(per_variable, "software/ok.toml").jitter == 0);
  CHECK(config::load_software_text(per_variable + "jitter = 0.02\n", "software/ok.toml").jitter == 0.02);
  CHECK(config::load_software("ideal").jitter == 0);
  CHECK(config::load_software("mpich").jitter == 0);
  for (const char* framework : {"horovod-nccl", "horovod-mpi", "pytorch-ddp", "tf-parameter-server",
                                "tf-distributed-replicated", "tf-replicated-nccl", "caffe2-gloo"}) {
    CAPTURE(framework);
    // platforms/software/README.md, "Jitter": a robust spread of 0.56 % is a half-normal's of scale
    // 0.56 % / (1.4826 x 0.3991).
    CHECK(config::load_software(framework).jitter == testing::relative(0.0056 / (1.4826 * 0.3991), 0.01));
  }
  CHECK(error_of(per_variable + "jitter = 11\n").find("software/bad.toml:9:10") != std::string::npos);
  CHECK(error_of(per_variable + "jitter = -0.1\n").find("software.jitter") != std::string::npos);
}

TEST_CASE("NCCL's channels are refused under a library that runs one ring") {
  const std::string ring = testing::edited(testing::edited(per_variable, "exchange = \"per-variable\"\npull = \"next-forward\"\n",
                                                           "fusion_threshold = \"64 MiB\"\nchannels = 4\n"),
                                           "\"parameter-server\"", "\"ring\"");
  CHECK(error_of(testing::edited(ring, "\"none\"", "\"mpich\"")) ==
        "software/bad.toml:8:12: error: software.channels: NCCL's channels (rings side by side), but library = \"mpich\" "
        "runs one ring: expected no channels, or an NCCL library");
  CHECK(config::load_software_text(testing::edited(ring, "\"none\"", "\"nccl\""), "software/ok.toml").channels == 4);
}

TEST_CASE("a negotiation needs a framework cycle to run in") {
  // Expectation: Horovod negotiates once per cycle; with no cycle the key is refused, not ignored.
  const std::string buckets = R"([software]
name = "hv"
library = "mpich"
collective = "auto"
collective_launch = "0 s"
reducer = "host-core"
fusion_threshold = "64 MiB"
negotiation = true
)";
  CHECK(error_of(buckets).find("software.negotiation: Horovod negotiates once per framework cycle") != std::string::npos);
  CHECK(config::load_software_text(buckets + "cycle = \"5 ms\"\n", "software/ok.toml").negotiation);
}

TEST_CASE("an NCCL stack names the MPI library of its sparse all-gathers, which an MPI library gathers itself") {
  const std::string nccl = testing::edited(testing::edited(testing::edited(per_variable, "exchange = \"per-variable\"\npull = \"next-forward\"\n",
                                                                           "fusion_threshold = \"64 MiB\"\n"),
                                                           "\"parameter-server\"", "\"ring\""),
                                           "\"none\"\ncollective", "\"nccl\"\ncollective");
  CHECK_FALSE(config::load_software_text(nccl, "software/ok.toml").gather_library.has_value());
  CHECK(config::load_software_text(nccl + "gather_library = \"openmpi\"\n", "software/ok.toml").gather_library ==
        collectives::Library::OpenMpi);
  CHECK(error_of(nccl + "gather_library = \"nccl\"\n") ==
        "software/bad.toml:8:18: error: software.gather_library: expected mpich or openmpi (the MPI library of the "
        "sparse all-gathers), got \"nccl\"");
  CHECK(error_of(testing::edited(nccl, "\"nccl\"", "\"mpich\"") + "gather_library = \"openmpi\"\n") ==
        "software/bad.toml:8:18: error: software.gather_library: the MPI library that gathers sparse gradients beside "
        "an NCCL library, but library = \"mpich\" gathers them itself: expected no gather_library, or an NCCL library");
}

TEST_CASE("a stack names the framework that computes, one of those device calibrations name, or none") {
  CHECK(config::load_software_text(per_variable, "software/ok.toml").framework.empty());
  CHECK(config::load_software_text(per_variable + "framework = \"mxnet\"\n", "software/ok.toml").framework == "mxnet");
  CHECK(error_of(per_variable + "framework = \"pytorh\"\n") ==
        "software/bad.toml:9:13: error: software.framework: unknown value \"pytorh\": expected one of \"caffe\", "
        "\"caffe2\", \"mxnet\", \"pytorch\", \"tensorflow\" (did you mean \"pytorch\"?)");
  // The bundled stacks: the frameworks' own name theirs; Horovod's and MPI's, which several run under, none.
  CHECK(config::load_software("tf-parameter-server").framework == "tensorflow");
  CHECK(config::load_software("pytorch-ddp").framework == "pytorch");
  CHECK(config::load_software("caffe2-gloo").framework == "caffe2");
  CHECK(config::load_software("horovod-nccl").framework.empty());
  CHECK(config::load_software("ideal").framework.empty());
}
