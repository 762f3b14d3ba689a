// mmap, madvise, and the SIGBUS handler that turns a file shrinking under its mapping into an
// error message.
#include "engine/support/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "engine/support/temp_file_cleanup.h"

namespace graft {
namespace {

// The live mappings the handler knows, in fixed slots: a signal handler may not allocate or
// lock. A mapping beyond the slots still works; its SIGBUS is then not explained.
struct Slot {
  std::atomic<const char*> begin{nullptr};
  std::atomic<size_t> size{0};
  char path[512] = {};
};
constexpr int kSlots = 64;
Slot slots[kSlots];
struct sigaction previous_action;

void write_all(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const char* at = static_cast<const char*>(info->si_addr);
  for (Slot& slot : slots) {
    const char* begin = slot.begin.load();
    if (begin == nullptr || at < begin || at >= begin + slot.size.load()) continue;
    static constexpr char kHead[] = "error: '";
    static constexpr char kTail[] =
        "' changed while graft was reading it (it is shorter now); nothing was written\n";
    write_all(kHead, sizeof kHead - 1);
    write_all(slot.path, ::strnlen(slot.path, sizeof slot.path));
    write_all(kTail, sizeof kTail - 1);
    remove_temp_files_now();
    ::_exit(1);
  }
  // Not ours: whoever handled it before does, or the default action when the access repeats.
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  if ((previous_action.sa_flags & SA_SIGINFO) == 0 && previous_action.sa_handler != SIG_DFL &&
      previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
    return;
  }
  // The default even where SIGBUS was ignored: an ignored fault would repeat forever.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
}

/// Installs on_sigbus unless it is installed: checked at every mapping rather than once, as a
/// test framework may have replaced the handler since.
void install_handler() {
  struct sigaction current {};
  if (::sigaction(SIGBUS, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_sigbus) return;
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &previous_action);
}

void watch(const char* begin, size_t size, const std::string& path) {
  install_handler();
  for (Slot& slot : slots) {
    if (slot.begin.load() != nullptr) continue;
    size_t n = std::min(path.size(), sizeof slot.path - 1);
    std::memcpy(slot.path, path.data(), n);
    slot.path[n] = '\0';
    slot.size.store(size);
    const char* expected = nullptr;
    if (slot.begin.compare_exchange_strong(expected, begin)) return;
  }
}

void unwatch(const char* begin) {
  for (Slot& slot : slots) {
    const char* expected = begin;
    if (slot.begin.compare_exchange_strong(expected, nullptr)) return;
  }
}

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

std::optional<MappedFile> MappedFile::map(const InputFile& file, std::string* error) {
  size_t size = static_cast<size_t>(file.size());
  if (size == 0) return MappedFile(nullptr, 0);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (p == MAP_FAILED) {
    *error = "cannot map '" + file.path() + "': " + std::strerror(errno);
    return std::nullopt;
  }
  ::madvise(p, size, MADV_SEQUENTIAL);
  watch(static_cast<const char*>(p), size, file.path());
  return MappedFile(static_cast<const char*>(p), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      released_(other.released_) {}

MappedFile::~MappedFile() {
  if (data_ == nullptr) return;
  unwatch(data_);
  ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::release_before(size_t offset) {
  size_t end = std::min(offset, size_) / page_size() * page_size();
  if (end < released_ + kReleaseStep) return;
  ::madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

}  // namespace graft
