// Reading a node's HPC kernel rates out of its spec, refusing what is missing.
#include "hpc/node_kernels.hpp"

#include "platform/topology.hpp"

#include <stdexcept>

namespace ceiling::hpc {
namespace {

template <class Q>
const Q& require(const std::optional<Q>& value, const std::string& key, const std::string& why) {
  if (!value)
    throw MissingRate(key, "missing key: " + why);
  return *value;
}

} // namespace

NodeKernels node_kernels(const platform::NodeSpec& node, Needs needs) {
  NodeKernels k;
  const double sockets = node.cpu.sockets;
  k.cpu_cores = node.cpu.sockets * node.cpu.cores_per_socket;
  k.message_overhead_s = (node.nic.send_overhead + node.nic.receive_overhead).seconds();
  k.gpu_direct = node.nic.gpu_direct;
  k.host_memory_bytes = node.cpu.host_memory ? node.cpu.host_memory->bytes() : 0;
  const auto cpu_peak = require(node.cpu.peak_per_socket.fp64, "node.cpu.peak_fp64",
                                "the HPC workloads count fp64 flops against the fp64 peak");
  k.peak_flop_per_s = cpu_peak.flop_per_second() * sockets;
  // HPL factors its panels on the CPU (DGEMM and STREAM), and updates on CPU nodes too; HPCG
  // streams on the CPU of a CPU node.
  if (needs == Needs::Dgemm)
    k.cpu_dgemm_flop_per_s = require(node.cpu.dgemm, "node.cpu.dgemm",
                          "HPL factors its panels on the CPU: give its measured DGEMM rate per socket (e.g. dgemm = \"150 GFLOP/s\")")
                      .flop_per_second() * sockets;
  if (needs == Needs::Dgemm || !node.gpu)
    k.cpu_stream_bytes_per_s = require(node.cpu.stream_bandwidth, "node.cpu.stream_bandwidth",
                           std::string(needs == Needs::Dgemm ? "HPL factors its panels" : "HPCG runs") +
                               " on the CPU: give its measured STREAM rate per socket (e.g. stream_bandwidth = \"40 GB/s\")")
                       .bytes_per_second() * sockets;
  if (node.gpu) {
    const auto& gpu = *node.gpu;
    const double count = gpu.count;
    k.gpu = true;
    k.gpus = gpu.count;
    k.gpu_memory_bytes = gpu.memory.bytes() * count;
    k.gpu_multiprocessors = gpu.multiprocessors * gpu.count;
    const auto gpu_peak = require(gpu.peak.fp64, "node.gpu.peak_fp64", "the HPC workloads run fp64 on the GPU");
    k.peak_flop_per_s += gpu_peak.flop_per_second() * count;
    // TOP500's R_peak counts the GPUs at their base clock (a CPU node has none apart from its peak).
    if (const auto rpeak = platform::node_rpeak(node))
      k.base_clock_peak_flop_per_s = rpeak->flop_per_second();
    if (needs == Needs::Dgemm)
      k.gpu_dgemm_flop_per_s = require(gpu.dgemm, "node.gpu.dgemm",
                            "HPL updates the trailing matrix on the GPU: give its measured DGEMM rate (e.g. dgemm = \"3.35 TFLOP/s\")")
                        .flop_per_second() * count;
    else
      k.gpu_stream_bytes_per_s = require(gpu.stream_bandwidth, "node.gpu.stream_bandwidth",
                             "HPCG runs on the GPU: give its measured STREAM rate (e.g. stream_bandwidth = \"500 GB/s\")")
                         .bytes_per_second() * count;
    const auto& pcie = *node.pcie;
    k.host_to_device_bytes_per_s = pcie.host_to_device.bytes_per_second();
    k.device_to_host_bytes_per_s = pcie.device_to_host.bytes_per_second();
    k.copy_s = (pcie.latency + pcie.copy_overhead).seconds();
  }
  return k;
}

} // namespace ceiling::hpc
