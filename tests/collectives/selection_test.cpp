// Algorithm selection: each library picks the documented algorithm on each side of its thresholds.
#include "collectives/selection.hpp"

#include <doctest/doctest.h>

using namespace ceiling::collectives;

TEST_CASE("MPICH runs recursive doubling up to 2048 bytes and Rabenseifner above") {
  // Expectation: MPICH 3.2 allreduce.c, MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048 (inclusive).
  for (int ranks : {2, 6, 16, 1024}) {
    CAPTURE(ranks);
    CHECK(select_allreduce(Library::Mpich, {.ranks = ranks, .element_bytes = 4}, 8).algorithm == Algorithm::RecursiveDoubling);
    CHECK(select_allreduce(Library::Mpich, {.ranks = ranks, .element_bytes = 4}, 2048).algorithm == Algorithm::RecursiveDoubling);
    CHECK(select_allreduce(Library::Mpich, {.ranks = ranks, .element_bytes = 4}, 2052).algorithm ==
          (2052 / 4 < ranks ? Algorithm::RecursiveDoubling : Algorithm::HalvingDoubling));
    CHECK(select_allreduce(Library::Mpich, {.ranks = ranks, .element_bytes = 4}, 100e6).algorithm == Algorithm::HalvingDoubling);
  }
}

TEST_CASE("MPICH keeps recursive doubling while the elements are fewer than the power of two of the ranks") {
  // Expectation: count < pof2 -> recursive doubling; 4,096 ranks (pof2 4,096) and 4-byte elements:
  // 16,380 bytes = 4,095 elements is below, 16,384 bytes = 4,096 elements is not.
  CHECK(select_allreduce(Library::Mpich, {.ranks = 5000, .element_bytes = 4}, 16380).algorithm == Algorithm::RecursiveDoubling);
  CHECK(select_allreduce(Library::Mpich, {.ranks = 5000, .element_bytes = 4}, 16384).algorithm == Algorithm::HalvingDoubling);
}

TEST_CASE("MPICH sums fp16 by recursive doubling at every size: the sum is not a built-in operation") {
  // Expectation: MPICH 3.2 allreduce.c takes recursive doubling for an operation that is not built
  // in, and Horovod sums fp16 with an MPI_Op of its own (mpi_context.cc float16_sum).
  for (double bytes : {8.0, 8192.0, 100e6}) {
    CAPTURE(bytes);
    CHECK(select_allreduce(Library::Mpich, {.ranks = 64, .element_bytes = 2}, bytes).algorithm == Algorithm::RecursiveDoubling);
    CHECK(select_allreduce(Library::Mpich, {.ranks = 64, .ranks_per_node = 8, .element_bytes = 2}, bytes).algorithm ==
          Algorithm::HierarchicalRecursiveDoubling);
  }
  CHECK(select_allreduce(Library::Mpich, {.ranks = 64, .element_bytes = 4}, 100e6).algorithm == Algorithm::HalvingDoubling);
}

TEST_CASE("Open MPI runs recursive doubling below 10,000 bytes, then the ring") {
  // Expectation: Open MPI 4.0 coll_tuned_decision_fixed.c: intermediate_message = 10000 (strict).
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 16, .element_bytes = 4}, 9999).algorithm == Algorithm::RecursiveDoubling);
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 16, .element_bytes = 4}, 10000).algorithm == Algorithm::Ring);
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 16, .element_bytes = 4}, 100e6).algorithm == Algorithm::Ring);
  // count <= ranks: reduce + broadcast (timed as the binary tree); count > ranks (strict): the ring.
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 4096, .element_bytes = 4}, 12000).algorithm == Algorithm::BinaryTree);
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 4096, .element_bytes = 4}, 4096 * 4).algorithm == Algorithm::BinaryTree);
  CHECK(select_allreduce(Library::OpenMpi, {.ranks = 4096, .element_bytes = 4}, 4097 * 4).algorithm == Algorithm::Ring);
}

TEST_CASE("every selection says why") {
  for (Library l : {Library::Mpich, Library::OpenMpi, Library::Nccl})
    for (double bytes : {8.0, 1e4, 1e8})
      CHECK_FALSE(select_allreduce(l, {.ranks = 64}, bytes).rule.empty());
  CHECK(library_from_string("mpich") == Library::Mpich);
  CHECK(library_from_string("openmpi") == Library::OpenMpi);
  CHECK_FALSE(library_from_string("mvapich").has_value());
}

TEST_CASE("MPICH takes its SMP path with several ranks per node: the flat rule among the nodes") {
  // Expectation: MPICH 3.2 allreduce.c, SMP collectives on by default: reduce inside the node,
  // the flat rule among the 16 node roots, broadcast inside.
  const SelectionContext dgx{.ranks = 128, .ranks_per_node = 8};
  CHECK(select_allreduce(Library::Mpich, dgx, 8).algorithm == Algorithm::HierarchicalRecursiveDoubling);
  CHECK(select_allreduce(Library::Mpich, dgx, 100e6).algorithm == Algorithm::HierarchicalHalvingDoubling);
  // On one node the roots' communicator has one rank: the rule says the reduce and broadcast alone.
  const SelectionContext one{.ranks = 8, .ranks_per_node = 8};
  CHECK(select_allreduce(Library::Mpich, one, 100e6).rule == "one node: SMP path, reduce and broadcast inside the node");
}

TEST_CASE("an all-gather runs as the library picks it by its total bytes and rank count") {
  // MPICH 3.2 allgatherv.c: recursive doubling below 524,288 bytes on a power of two, Bruck
  // below 81,920, else the ring. Open MPI 4.0: Bruck below 50,000 bytes, else the ring (the
  // neighbour exchange on an even count, timed as the ring). NCCL and the stacks' own: the ring.
  CHECK(select_allgather(Library::Mpich, 8, 1024).gather == Gather::RecursiveDoubling);    // 8 KiB in all
  CHECK(select_allgather(Library::Mpich, 64, 8191).gather == Gather::RecursiveDoubling);   // just below 512 KiB
  CHECK(select_allgather(Library::Mpich, 64, 8192).gather == Gather::Ring);                // 512 KiB
  CHECK(select_allgather(Library::Mpich, 6, 1024).gather == Gather::Bruck);                // not a power of two
  CHECK(select_allgather(Library::Mpich, 10, 8191).gather == Gather::Bruck);               // 81,910 bytes
  CHECK(select_allgather(Library::Mpich, 10, 8192).gather == Gather::Ring);                // 81,920
  CHECK(select_allgather(Library::OpenMpi, 6, 8000).gather == Gather::Bruck);              // 48,000 bytes
  CHECK(select_allgather(Library::OpenMpi, 5, 9999).gather == Gather::Bruck);              // 49,995 bytes
  CHECK(select_allgather(Library::OpenMpi, 5, 10000).gather == Gather::Ring);              // 50,000 (strict <)
  // (an odd count: the ring itself, the neighbour exchange needing pairs)
  CHECK(select_allgather(Library::OpenMpi, 5, 10000).rule.find("neighbour") == std::string::npos);
  CHECK(select_allgather(Library::OpenMpi, 8, 1e5).gather == Gather::Ring);
  CHECK(select_allgather(Library::OpenMpi, 8, 1e5).rule == "sparse all-gather, Open MPI: neighbour exchange, timed as the ring");
  CHECK(select_allgather(Library::OpenMpi, 2, 100).rule == "sparse all-gather, Open MPI: two processes, one exchange");
  CHECK(select_allgather(Library::Nccl, 8, 1024).gather == Gather::Ring);
  CHECK(select_allgather(std::nullopt, 8, 1024).gather == Gather::Ring);
}
