// Software files: the training stack's library, algorithm choice, costs and fusion.
#include "config/software_file.hpp"

#include "config/bundled_software.hpp"
#include "config/input_file.hpp"
#include "config/overrides_internal.hpp"
#include "config/table_reader.hpp"
#include "workload/workload_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ceiling::config {
namespace {

using units::DataSize;
using units::Duration;

stack::SoftwareStack read_software(const toml::table& root, const std::string& path) {
  TableReader file(root, "", path);
  TableReader t = file.table("software");
  stack::SoftwareStack s;
  s.name = t.name("name", "it labels the outputs");
  s.description = t.optional_label("description", most_question_characters).value_or("");
  if (t.has("framework"))
    s.framework = t.choice("framework", workload::framework_names);
  const std::string library = t.string("library");
  if (library != "none") {
    s.library = collectives::library_from_string(library);
    if (!s.library)
      t.fail("library", "expected none or one of " + collectives::library_names() + ", got \"" + library + "\"");
  }
  const std::string collective = t.string("collective");
  if (collective == "auto") {
    s.collective.reset();
    if (!s.library)
      t.fail("collective", "\"auto\" lets the library choose, but library = \"none\": name an algorithm (" +
                               collectives::algorithm_names() + ")");
  } else {
    s.collective = collectives::algorithm_from_string(collective);
    if (!s.collective)
      t.fail("collective", "expected auto or one of " + collectives::algorithm_names() + ", got \"" +
                               collective + "\"");
  }
  s.message_overheads = t.boolean_or("message_overheads", false);
  s.copy_overheads = t.boolean_or("copy_overheads", false);
  s.collective_launch = t.optional_quantity<Duration>("collective_launch", Sign::NonNegative).value_or(Duration{});
  s.reducer = named(t, "reducer", stack::reducer_from_string, stack::reducer_names_list(), std::optional(s.reducer));
  s.needs_gpus = t.boolean_or("needs_gpus", false);
  s.exchange = named(t, "exchange", stack::exchange_from_string, stack::exchange_names(), std::optional(s.exchange));
  if (s.exchange == stack::Exchange::Buckets)
    s.fusion_threshold = t.quantity<DataSize>("fusion_threshold", Sign::Positive);
  else if (t.has("fusion_threshold"))
    t.fail("fusion_threshold", "exchange = \"per-variable\" exchanges every layer's variables on their own: "
                               "nothing is fused, remove the key");
  s.first_bucket = t.optional_quantity<DataSize>("first_bucket", Sign::Positive);
  s.rebuild_buckets = t.boolean_or("rebuild_buckets", false);
  if (s.rebuild_buckets && !s.first_bucket)
    t.fail("rebuild_buckets", "rebuilds DDP's buckets, which need first_bucket (DDP's first bucket size, such as \"1 MiB\")");
  s.cycle = t.optional_quantity<Duration>("cycle", Sign::NonNegative).value_or(Duration{});
  s.negotiation = t.boolean_or("negotiation", false);
  s.overlap = t.boolean_or("overlap", true);
  s.fusion = named(t, "fusion", stack::fusion_from_string, stack::fusion_names(), std::optional(s.fusion));
  s.sparse = named(t, "sparse_gradients", stack::sparse_gradients_from_string, stack::sparse_gradients_names(),
                   std::optional(s.sparse));
  s.local_aggregation = t.boolean_or("local_aggregation", false);
  s.pull = named(t, "pull", stack::pull_from_string, stack::pull_names(), std::optional(s.pull));
  s.placement = named(t, "placement", stack::placement_from_string, stack::placement_names(), std::optional(s.placement));
  s.jitter = t.optional_number("jitter", 0, stack::max_jitter).value_or(0);
  if (auto chunk = t.optional_quantity<DataSize>("pipeline_chunk", Sign::Positive)) {
    // (a plausibility floor, not NCCL's: its Simple chunks are tens of KiB and more; an exact
    // expansion of 16 B chunks of a 100 MB bucket takes a minute per iteration)
    if (chunk->bytes() < 1024)
      t.fail("pipeline_chunk", "must be at least 1 KiB, got " + units::to_string(*chunk));
    s.pipeline_chunk = *chunk;
  }
  if (auto channels = t.optional_integer("channels", 1, 32)) // NCCL's MAXCHANNELS (2.4: 16, 2.7: 32)
    s.channels = static_cast<int>(*channels);
  if (s.channels && !s.runs_nccl())
    t.fail("channels", "NCCL's channels (rings side by side), but library = \"" + library +
                           "\" runs one ring: expected no channels, or an NCCL library");
  if (auto gather = t.optional_string("gather_library")) {
    s.gather_library = collectives::library_from_string(*gather);
    if (s.gather_library != collectives::Library::Mpich && s.gather_library != collectives::Library::OpenMpi)
      t.fail("gather_library", "expected mpich or openmpi (the MPI library of the sparse all-gathers), got \"" + *gather + "\"");
    if (!s.runs_nccl())
      t.fail("gather_library", "the MPI library that gathers sparse gradients beside an NCCL library, but library = \"" +
                                   library + (s.library ? "\" gathers them itself" : "\" runs no NCCL") +
                                   ": expected no gather_library, or an NCCL library");
  }
  t.reject_unknown_keys(); // first: a misspelt key explains a combination's problem
  file.reject_unknown_keys();
  if (const auto problem = stack::exchange_problem(s))
    t.fail(problem->key, problem->message);
  return s;
}

const BundledFile* bundled(const std::string& name) {
  for (const BundledFile& f : bundled_software)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// Whether `path` names something: a file, or a link that cannot be followed (a loop of links),
/// whose reading then says why; false for a name too long to look at.
bool names_something(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) || std::filesystem::is_symlink(path, ec);
}

/// A bundled stack's name always names the bundled stack, whatever the current directory holds
/// (a file of that name there is read as `./NAME`): a name that meant another stack in another
/// directory would change results silently.
bool is_bundled_name(const std::string& name_or_path) {
  return bundled(name_or_path) != nullptr;
}

[[noreturn]] void unknown(const std::string& name_or_path) {
  throw LoadError({name_or_path, 0, 0}, "",
                  "no such software file, and no bundled stack of that name: expected a file or one of " +
                      bundled_software_list() + did_you_mean_listed(name_or_path, bundled_software_list()));
}

stack::SoftwareStack read_with_overrides(toml::table root, const std::string& path,
                                         std::span<const std::string> overrides) {
  apply_overrides(root, path, overrides, OverrideTarget::Software);
  return noting_overrides_of([&] { return read_software(root, path); }, overrides,
                             OverrideTarget::Software);
}

} // namespace

std::vector<std::string> bundled_software_names() {
  std::vector<std::string> names;
  for (const BundledFile& f : bundled_software)
    names.emplace_back(f.name);
  return names; // generated in name order
}

SoftwareReference software_reference(const std::string& file, const std::string& given) {
  if (is_blank(given)) // (a stack left empty is not the default stack)
    return {given, "empty: expected a bundled stack (" + bundled_software_list() + ") or a software file's path"};
  const auto names = bundled_software_names();
  if (std::find(names.begin(), names.end(), given) != names.end())
    return {given, std::nullopt};
  const std::string path = beside(file, given);
  if (const auto problem = input_file_problem(path))
    return {path, "\"" + given + "\" is neither a bundled stack (" + bundled_software_list() +
                      ") nor a software file: " + *problem + ": " + path};
  return {path, std::nullopt};
}

std::string software_named(TableReader& t, std::string_view key, const std::string& given) {
  auto reference = software_reference(t.file(), given);
  if (reference.problem)
    t.fail(key, *reference.problem);
  return reference.name_or_path;
}

std::string bundled_software_list() {
  std::string list;
  for (const auto& n : bundled_software_names())
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

namespace {

/// The TOML of the stack `name_or_path` names, and the path its errors cite (a bundled stack's
/// source file).
std::pair<toml::table, std::string> software_root(const std::string& name_or_path) {
  if (is_bundled_name(name_or_path)) {
    const BundledFile& f = *bundled(name_or_path);
    return {parse_toml_text(f.text, std::string(f.path)), std::string(f.path)};
  }
  if (!names_something(name_or_path) && name_or_path.find('/') == std::string::npos) {
    // (a bundled stack named as its file: "horovod-nccl.toml")
    const std::string stem = name_or_path.substr(0, name_or_path.size() - (name_or_path.ends_with(".toml") ? 5 : 0));
    if (stem != name_or_path && is_bundled_name(stem))
      throw LoadError({name_or_path, 0, 0}, "", "no such software file; the bundled stack is named " + stem + ", without .toml");
    unknown(name_or_path);
  }
  return {parse_toml_file(name_or_path), name_or_path};
}

} // namespace

stack::SoftwareStack load_software(const std::string& name_or_path, std::span<const std::string> overrides) {
  auto [root, path] = software_root(name_or_path);
  return read_with_overrides(std::move(root), path, overrides);
}

stack::SoftwareStack load_software_text(std::string_view text, const std::string& path,
                                        std::span<const std::string> overrides) {
  return read_with_overrides(parse_toml_text(text, path), path, overrides);
}

std::string software_text(const std::string& name_or_path) {
  if (is_bundled_name(name_or_path))
    return std::string(bundled(name_or_path)->text);
  std::ifstream in(name_or_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

LoadError software_key_error(const std::string& name_or_path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message) {
  auto [root, path] = software_root(name_or_path);
  apply_overrides(root, path, overrides, OverrideTarget::Software);
  return noting_overrides(key_error(root, path, dotted_key, message), overrides,
                          OverrideTarget::Software);
}

} // namespace ceiling::config
