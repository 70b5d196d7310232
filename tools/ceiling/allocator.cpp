// The allocator's settings, which jemalloc reads from this symbol when the program starts (its
// documented `malloc_conf`, jemalloc 5.3 doc/jemalloc.xml.in "TUNING"; a MALLOC_CONF environment
// variable still applies after it). Linked only with jemalloc (tools/CMakeLists.txt).
//
// Transparent huge pages for jemalloc's extents and for its own metadata: a run touches its
// machine, routes and flows once (hundreds of megabytes at 16,384 nodes), and with 4 KiB pages
// the page faults took 13-18 % of the process (the kernel's fault handler first in its profile).
// Where the kernel's transparent huge pages are set to "madvise" (Debian's default) jemalloc asks
// for them; set to "never", nothing changes. The results do not depend on it.
extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:always";
}
