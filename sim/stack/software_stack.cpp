#include "stack/software_stack.hpp"

#include "support/enum_names.hpp"

namespace ceiling::stack {
namespace {

constexpr support::EnumNames<Reducer, 3> reducer_names{{{
    {Reducer::None, "none"},
    {Reducer::HostCore, "host-core"},
    {Reducer::Device, "device"},
}}};

constexpr support::EnumNames<SparseGradients, 3> sparse_names{{{
    {SparseGradients::AllGather, "allgather"},
    {SparseGradients::Dense, "dense"},
    {SparseGradients::Cheaper, "cheaper"},
}}};

} // namespace

std::string_view to_string(SparseGradients g) { return sparse_names.name(g); }
std::optional<SparseGradients> sparse_gradients_from_string(std::string_view text) { return sparse_names.parse(text); }
std::string sparse_gradients_names() { return sparse_names.list(); }

std::string_view to_string(Reducer r) { return reducer_names.name(r); }
std::optional<Reducer> reducer_from_string(std::string_view text) { return reducer_names.parse(text); }
std::string reducer_names_list() { return reducer_names.list(); }

} // namespace ceiling::stack
