// Directly addressable L1: a kernel may turn an L1 address into a pointer and dereference it, as
// on the device (tt-metal's add_2_integers_in_riscv reads `*(uint32_t*)src0_l1` where `src0_l1`
// is an L1 buffer's address() passed as a runtime argument; semaphores and CB pages are read the
// same way). On the device that address is an offset into the running core's own L1; here it is
// a host virtual address, so the host range [lo, 2 MiB) is reserved once per process and shows
// the L1 of the core whose kernel is running, at the same offsets.
//
// Each device's L1 is a memfd (every core's window one after the other), so the emulator's own
// windows (DeviceState::l1) and this one share their pages. Showing a core costs a mapping, so
// it is done lazily: the range stays inaccessible until a kernel touches it; the SIGSEGV that
// raises maps the running core's L1 there and the access is retried. A switch to a kernel of
// another core makes the range inaccessible again (only when it was mapped), so programs that
// never dereference a raw L1 address pay nothing. Kernels run one at a time on one thread
// (scheduler.cpp), so one range serves every core.
//
// lo is the lowest address the kernel lets a process map (/proc/sys/vm/mmap_min_addr, at least a
// page): an access below it, or past the device's L1, is an ordinary crash. If the range is taken
// (another mapping sits there), raw L1 addresses are not dereferenceable, as before.
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

#include "state.hpp"

namespace tk::rt::emu {
namespace {
constexpr std::uintptr_t kTop = 2u << 20; // above every architecture's L1 (arch/)
static_assert(kTop >= arch::kWormholeB0.l1_size && kTop >= arch::kBlackhole.l1_size);

std::uintptr_t g_lo = 0;       // 0: no window
int g_fd = -1;                 // the running core's device memfd, -1 outside a kernel
std::uint64_t g_offset = 0;    // the running core's window in it
std::uint32_t g_l1_size = 0;   // the running core's L1 size
bool g_mapped = false;         // the range shows the running core's L1
struct sigaction g_previous{}; // the SIGSEGV action before ours

void make_inaccessible() {
  mmap(reinterpret_cast<void*>(g_lo), kTop - g_lo, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  g_mapped = false;
}

// Hands a fault that is not ours to the action that was there before.
void chain(int sig, siginfo_t* info, void* uctx) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, uctx);
  } else if (g_previous.sa_handler == SIG_DFL || g_previous.sa_handler == SIG_IGN) {
    // Re-raised on return by the faulting instruction, now with the default action.
    signal(sig, SIG_DFL);
  } else {
    g_previous.sa_handler(sig);
  }
}

void on_segv(int sig, siginfo_t* info, void* uctx) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (g_fd >= 0 && !g_mapped && at >= g_lo && at < g_l1_size) {
    void* p = mmap(reinterpret_cast<void*>(g_lo), g_l1_size - g_lo, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, g_fd, static_cast<off_t>(g_offset + g_lo));
    if (p != MAP_FAILED) {
      g_mapped = true;
      return;
    }
  }
  if (g_fd >= 0 && at < kTop) {
    static const char msg[] = "tk_emulator: a kernel accessed an address outside its core's L1 "
                              "(below the lowest mappable address or past the end of L1)\n";
    [[maybe_unused]] const ssize_t n = write(2, msg, sizeof msg - 1);
  }
  chain(sig, info, uctx);
}

std::uintptr_t lowest_mappable() {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t min = 65536;
  std::ifstream f("/proc/sys/vm/mmap_min_addr");
  if (f)
    f >> min;
  min = (min + page - 1) / page * page;
  return min < page ? page : min;
}

void reserve() {
  const std::uintptr_t lo = lowest_mappable();
  if (lo >= kTop)
    return;
  void* p = mmap(reinterpret_cast<void*>(lo), kTop - lo, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED)
    return;
  if (p != reinterpret_cast<void*>(lo)) { // a kernel without MAP_FIXED_NOREPLACE
    munmap(p, kTop - lo);
    return;
  }
  struct sigaction sa{};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_previous) != 0) {
    munmap(p, kTop - lo);
    return;
  }
  g_lo = lo;
}
} // namespace

int make_l1_memfd(std::size_t bytes) {
  static std::once_flag once;
  std::call_once(once, reserve);
  const int fd = memfd_create("tk_emulator_l1", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    if (fd >= 0)
      close(fd);
    throw EmulatorError("cannot create " + std::to_string(bytes) +
                        " bytes of L1 (memfd_create: " + std::strerror(errno) + ")");
  }
  return fd;
}

void l1_window_enter(const DeviceState& dev, const CoreState& core) {
  if (g_lo == 0)
    return;
  const std::uint64_t offset = std::uint64_t{core.index} * dev.l1_size();
  if (g_fd == dev.l1_fd && g_offset == offset)
    return;
  if (g_mapped)
    make_inaccessible();
  g_fd = dev.l1_fd;
  g_offset = offset;
  g_l1_size = dev.l1_size();
}

void l1_window_leave() {
  if (g_lo == 0)
    return;
  if (g_mapped)
    make_inaccessible();
  g_fd = -1;
}
} // namespace tk::rt::emu
