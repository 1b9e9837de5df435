// Huge pages for the heap.
//
// A run keeps every file's text and facts until it ends, so its heap only grows: at 1,000 files
// about 8 MB, touched once each 4 KiB page. On virtual machines where a page fault exits to the
// hypervisor, those first touches cost more than the analysis itself (25 us apiece on the 2-core
// machine of docs/performance.md: 2,000 faults, 50 ms of CPU, against 40 ms of parsing). Asking the
// kernel for transparent huge pages (2 MiB, one fault each) on the memory malloc reserves removes
// most of them. Only advice: where the kernel has no transparent huge pages, or gives them to every
// mapping anyway, nothing changes. Nothing either under the sanitizers (their own allocator), with
// another C library than glibc (or glibc before 2.33), or where the process may not reserve memory
// in large steps (a limit on its data or address space, strict overcommit accounting).
#pragma once

namespace trl {

// For the main thread's heap: malloc grows it in large steps, never gives memory back while the
// process runs (it is short-lived), serves large blocks from it rather than from mappings of their
// own, and the next 256 MiB of the heap are advised to use huge pages. Call once, first thing in
// main.
void prefer_huge_pages();

// For the calling thread's malloc arena (a helper thread's own heap), after prefer_huge_pages: it
// grows in the same steps and is advised to use huge pages. Once per thread, before its work.
void prefer_huge_pages_here();

// Whether this build gives the advice at all (glibc 2.33 or later on Linux, no sanitizer): for tests.
bool gives_huge_page_advice();

}  // namespace trl
