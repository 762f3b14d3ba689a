#include "engine/support/temp_file_cleanup.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace graft {
namespace {

// The table the handler reads. A slot is claimed (kWriting) before its path is copied in and
// published (kActive) after, so the handler only reads complete paths; it needs no lock, and
// nothing in it allocates. (With several threads registering and releasing at once, a handler
// could still read a slot that is being reused; graft writes its files from one thread.)
enum SlotState : int { kFree = 0, kWriting = 1, kActive = 2 };
constexpr int kSlots = 32;
constexpr size_t kMaxPath = 4096;

struct Slot {
  std::atomic<int> state{kFree};
  pid_t owner = 0;  // a forked child inherits the table, and must not remove its parent's files
  char path[kMaxPath];
};
Slot g_slots[kSlots];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[NSIG];  // what each signal did before our handler was installed

void remove_active() {
  const pid_t self = ::getpid();
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == kActive && s.owner == self) ::unlink(s.path);
  }
}

void on_signal(int sig) {
  const int saved_errno = errno;
  remove_active();
  // Then whatever the signal would have done: usually end the process, reported as killed by
  // `sig` (the signal is blocked while this runs and is delivered once it returns). A previous
  // handler that lets the process go on finds the temporaries gone: the write then fails.
  ::sigaction(sig, &g_previous[sig], nullptr);
  ::raise(sig);
  errno = saved_errno;
}

/// Installs on_signal for each signal not ignored and not already ours. Checked at every
/// registration rather than once: a test framework may have replaced the handlers since.
void install_handlers() {
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit(remove_active); });
  for (int sig : kSignals) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0) continue;
    if (current.sa_handler == SIG_IGN || current.sa_handler == on_signal) continue;
    struct sigaction ours {};
    ours.sa_handler = on_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = 0;
    g_previous[sig] = current;
    ::sigaction(sig, &ours, nullptr);
  }
}

/// Blocks kSignals for its lifetime: a signal arriving meanwhile is delivered at the end, to
/// the handler, once the temporary it would have missed is registered.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

/// Publishes `path` in a free slot; -1 when the table is full or the path too long.
int claim_slot(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    g_slots[i].owner = ::getpid();
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

void remove_temp_files_now() { remove_active(); }

TempFileCleanup::TempFileCleanup(const std::string& path) : slot_(claim_slot(path)) {
  if (slot_ >= 0) install_handlers();
}

int TempFileCleanup::make_temp(std::string& path_template, TempFileCleanup* cleanup) {
  SignalsBlocked blocked;
  install_handlers();
  int fd = ::mkstemp(path_template.data());
  if (fd >= 0) {
    cleanup->release();
    cleanup->slot_ = claim_slot(path_template);  // the handlers are in place already
  }
  return fd;  // errno from mkstemp: unblocking the signals succeeds and leaves it as it is
}

TempFileCleanup& TempFileCleanup::operator=(TempFileCleanup&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void TempFileCleanup::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace graft
