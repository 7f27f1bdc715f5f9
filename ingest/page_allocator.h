// PageAllocator: a std::allocator for the ingest buffer's large logs that
// takes them straight from the kernel (mmap) and gives them straight back
// (munmap). A reservation made this way costs memory only for the pages
// written: one made through malloc may be carved out of memory freed a
// moment earlier and still resident (the last flush's sort scratch), and
// then costs its whole size (synthetic 95k documents at --memory 128M:
// some 70 MB stayed resident between flushes). Allocations below
// kMinPageAllocation go to malloc, so that thousands of small bins do not
// each hold a page. Elements made without arguments are default-initialized
// (left as they are, for trivial types): a sort's scratch array is written
// whole by the sort, and zeroing it first was a serial pass over a bin's
// log that faulted in every page on one thread. Stateless; thread-safe.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace dps {

inline constexpr size_t kMinPageAllocation = 256 << 10;

template <typename T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMinPageAllocation) {
      void* p = std::malloc(bytes == 0 ? 1 : bytes);
      if (p == nullptr) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMinPageAllocation) {
      std::free(p);
    } else {
      munmap(p, bytes);
    }
  }
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const PageAllocator&, const PageAllocator&) { return true; }
};

}  // namespace dps
