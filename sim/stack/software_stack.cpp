#include "stack/software_stack.hpp"

#include "support/enum_names.hpp"

namespace ceiling::stack {
namespace {

constexpr support::EnumNames<Reducer, 3> reducer_names{{{
    {Reducer::None, "none"},
    {Reducer::HostCore, "host-core"},
    {Reducer::Device, "device"},
}}};

constexpr support::EnumNames<SparseGradients, 4> sparse_names{{{
    {SparseGradients::AllGather, "allgather"},
    {SparseGradients::Dense, "dense"},
    {SparseGradients::Cheaper, "cheaper"},
    {SparseGradients::Servers, "servers"},
}}};

constexpr support::EnumNames<Exchange, 2> exchange_names_{{{
    {Exchange::Buckets, "buckets"},
    {Exchange::PerVariable, "per-variable"},
}}};

constexpr support::EnumNames<Pull, 2> pull_names_{{{
    {Pull::AfterPush, "after-push"},
    {Pull::NextForward, "next-forward"},
}}};

constexpr support::EnumNames<Fusion, 2> fusion_names_{{{
    {Fusion::BySize, "by-size"},
    {Fusion::ByCycle, "by-cycle"},
}}};

} // namespace

std::string_view to_string(Fusion f) { return fusion_names_.name(f); }
std::optional<Fusion> fusion_from_string(std::string_view text) { return fusion_names_.parse(text); }
std::string fusion_names() { return fusion_names_.list(); }

std::string_view to_string(Pull p) { return pull_names_.name(p); }
std::optional<Pull> pull_from_string(std::string_view text) { return pull_names_.parse(text); }
std::string pull_names() { return pull_names_.list(); }

std::string_view to_string(Exchange e) { return exchange_names_.name(e); }
std::optional<Exchange> exchange_from_string(std::string_view text) { return exchange_names_.parse(text); }
std::string exchange_names() { return exchange_names_.list(); }

std::string_view to_string(SparseGradients g) { return sparse_names.name(g); }
std::optional<SparseGradients> sparse_gradients_from_string(std::string_view text) { return sparse_names.parse(text); }
std::string sparse_gradients_names() { return sparse_names.list(); }

std::optional<StackProblem> exchange_problem(const SoftwareStack& s) {
  if (s.fusion == Fusion::ByCycle) {
    const std::string needs = "\"by-cycle\" fuses what every rank has ready at each tick of a framework cycle (Horovod)";
    if (!(s.cycle.seconds() > 0))
      return StackProblem{"fusion", needs + ": it needs a cycle (such as cycle = \"5 ms\")"};
    if (s.exchange != Exchange::Buckets || s.first_bucket || s.collective == collectives::Algorithm::ParameterServer)
      return StackProblem{"fusion", needs + ", not per-variable exchanges, DDP's buckets (first_bucket) or parameter "
                                            "servers: expected \"by-size\""};
  }
  // What only parameter servers use is refused elsewhere rather than dropped.
  if (s.collective != collectives::Algorithm::ParameterServer && s.exchange != Exchange::PerVariable) {
    const std::string no_servers = ", but the collective is not \"parameter-server\": ";
    if (s.local_aggregation)
      return StackProblem{"local_aggregation", "gathers each node's gradients for the parameter servers" + no_servers +
                                                   "expected false or no key"};
    if (s.placement != Placement::Even)
      return StackProblem{"placement", "places the variables on the parameter servers" + no_servers +
                                           "expected \"even\" or no key"};
    if (s.sparse == SparseGradients::Servers)
      return StackProblem{"sparse_gradients", "\"servers\" sends the embedding tables' rows to and from the parameter "
                                              "servers that hold them" + no_servers +
                                              "expected \"allgather\", \"dense\" or \"cheaper\""};
  }
  if (s.sparse == SparseGradients::Servers && s.local_aggregation)
    return StackProblem{"sparse_gradients", "\"servers\" with local_aggregation is not modelled (a worker's GPUs would "
                                            "first combine their rows): expected \"allgather\", \"dense\" or \"cheaper\""};
  if (s.sparse == SparseGradients::Servers && s.pull != Pull::NextForward)
    return StackProblem{"sparse_gradients", "\"servers\" reads the rows each step looks up from the tables' servers, as "
                                            "TensorFlow's embedding_lookup does, which needs pull = \"next-forward\" "
                                            "(and exchange = \"per-variable\"): expected \"allgather\", \"dense\" or "
                                            "\"cheaper\", or those keys"};
  if (s.negotiation && !(s.cycle.seconds() > 0) && s.exchange != Exchange::PerVariable)
    return StackProblem{"negotiation", "Horovod negotiates once per framework cycle: it needs a cycle (such as "
                                       "cycle = \"5 ms\"), or negotiation = false"};
  if (s.exchange == Exchange::PerVariable) {
    const std::string refuses = "exchange = \"per-variable\" (TensorFlow's sends to parameter servers) ";
    if (s.collective != collectives::Algorithm::ParameterServer)
      return StackProblem{"collective", refuses + "needs collective = \"parameter-server\""};
    if (s.cycle.seconds() > 0)
      return StackProblem{"cycle", refuses + "has no framework cycle: expected \"0 s\" or no key"};
    if (s.negotiation)
      return StackProblem{"negotiation", refuses + "has no negotiation: expected false or no key"};
    if (s.collective_launch.seconds() > 0)
      return StackProblem{"collective_launch", refuses + "launches no collective: expected \"0 s\""};
    if (s.first_bucket)
      return StackProblem{"first_bucket", refuses + "has no buckets: remove the key"};
  }
  if (s.pull == Pull::NextForward && s.exchange != Exchange::PerVariable)
    return StackProblem{"pull", "\"next-forward\" reads each variable as the forward pass needs it, which needs "
                                "exchange = \"per-variable\""};
  if (s.pull == Pull::NextForward && s.local_aggregation)
    return StackProblem{"pull", "\"next-forward\" with local_aggregation is not modelled (the GPUs of a worker "
                                "would read the variables from its CPU): expected \"after-push\""};
  return std::nullopt;
}

std::string_view to_string(Reducer r) { return reducer_names.name(r); }
std::optional<Reducer> reducer_from_string(std::string_view text) { return reducer_names.parse(text); }
std::string reducer_names_list() { return reducer_names.list(); }

} // namespace ceiling::stack
