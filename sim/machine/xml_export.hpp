// A built machine written as a SimGrid XML platform (version 4.1) that other SimGrid programs load.
#pragma once

#include "machine/machine.hpp"

#include <ostream>
#include <string_view>

namespace ceiling::platform {

/// Largest node count export_xml() accepts: the file lists every node-to-node route
/// explicitly, so it grows with the square of the node count (about 1 kB per pair).
inline constexpr long long max_xml_export_nodes = 512;

/// Writes the machine's allocated nodes as SimGrid XML: a full-routing zone "fabric" holding
/// one full-routing zone per node (hosts with one speed per pstate, the NIC router as gateway,
/// PCIe, NIC and GPU links) and one zoneRoute per ordered pair of nodes listing the fabric links
/// SimGrid's cluster zone routes through. Split-duplex links become two shared links named like
/// SimGrid's halves (NAME_UP, NAME_DOWN), so routes name the same links in both forms.
/// Requires machine.size() <= max_xml_export_nodes.
void export_xml(const Machine& machine, std::ostream& out);

/// How a file export_xml() wrote begins, so that an earlier export is told from other files
/// before it is written over.
inline constexpr std::string_view xml_export_start =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

} // namespace ceiling::platform
