// Kernel entry points for runtime args, circular buffers and the NoC, with the protocol checks the
// hardware does not make (reserve/push and wait/pop windows, the exact-wrap rule, NoC targets,
// reads waited for before a kernel returns, pages popped only once the writes sending them are
// flushed).
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "bfp4.hpp"
#include "bfp8.hpp"
#include "dev_mem_map.h"
#include "state.hpp"

namespace tk::rt::emu {
namespace {
constexpr unsigned kLocalBits = 36;
constexpr std::uint64_t kLocalMask = (1ull << kLocalBits) - 1;
constexpr std::uint64_t kMulticastFlag = 1ull << 63;

std::uint32_t window_base(const CoreState& core) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(core.l1));
}
std::string range_str(std::uint64_t off, std::uint32_t size) {
  return "[" + hex(off) + ", " + hex(off + size) + ")";
}
std::string count(std::uint32_t n, const char* unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

CbState& cb_at(std::int32_t cb, const char* op, std::int32_t pages) {
  const std::string call = std::string(op) + "(" + cb_name(static_cast<std::uint32_t>(cb)) + ", " +
                           std::to_string(pages) + ")";
  if (!cb_in_range(active_device().arch, cb))
    fail(std::string(op) + ": " + cb_out_of_range(active_device().arch, cb));
  CbState& s = current().core->cbs[cb];
  if (!s.configured)
    fail(call + ": " + cb_name(cb) + " is not configured on this core");
  if (pages < 0 || static_cast<std::uint32_t>(pages) > s.num_pages) {
    fail(call + ": asks for " + count(static_cast<std::uint32_t>(pages), "page") + " but " +
         cb_name(cb) + " holds " + count(s.num_pages, "page"));
  }
  return s;
}

// The semaphore at L1 offset `off` of `core`, if one of the program's semaphores is there.
std::optional<std::uint32_t> semaphore_at(const CoreState& core, std::uint64_t off) {
  const DeviceState& dev = active_device();
  const std::uint32_t base = dev.semaphore_base(), align = dev.arch.l1_alignment;
  if (off < base || off >= base + std::uint64_t{core.num_semaphores} * align)
    return std::nullopt;
  return static_cast<std::uint32_t>((off - base) / align);
}

// Local L1 addresses may be pointers into the core's window or plain offsets; both mean the same
// byte.
std::uint32_t to_offset(const CoreState& core, std::uint64_t addr, const char* op) {
  const std::uint32_t base = window_base(core);
  const std::uint32_t l1_size = active_device().l1_size();
  if (addr >= base && addr < std::uint64_t{base} + l1_size)
    return static_cast<std::uint32_t>(addr - base);
  if (addr < l1_size)
    return static_cast<std::uint32_t>(addr);
  fail(std::string(op) + ": address " + hex(addr) + " is not in this core's L1");
}

// Checks an access to [off, off+size) of a worker core's L1 against the CBs, semaphores and L1
// buffers. With the watcher off an access outside them is the L1 bytes it names, as on the chip.
void check_l1(const CoreState* core, std::uint32_t off, std::uint32_t size, bool write,
              const char* op, const std::string& who) {
  const DeviceState& dev = active_device();
  const std::uint64_t end = std::uint64_t{off} + size;
  if (core != nullptr && semaphore_at(*core, off) && semaphore_at(*core, end - 1))
    return;
  // The hardware zeros region (dev_mem_map.h): read-only zeros, which nothing else occupies.
  const std::uint32_t zeros = mem_zeros_base(dev.arch.firmware_define == "ARCH_BLACKHOLE");
  if (!write && off >= zeros && end <= zeros + kMemZerosSize)
    return;
  for (const auto& a : dev.allocations) {
    if (a.alive && !a.dram && off >= a.address && end <= a.address + a.bytes_per_bank)
      return;
  }
  if (core != nullptr) {
    std::string message, site;
    for (std::uint32_t i = 0; i < dev.arch.num_circular_buffers; ++i) {
      const CbState& cb = core->cbs[i];
      if (!cb.configured)
        continue;
      const std::uint64_t lo = cb.address, hi = lo + std::uint64_t{cb.num_pages} * cb.page_size;
      if (off < lo || end > hi)
        continue;
      const auto in_pages = [&](std::uint32_t first, std::uint32_t n) {
        const std::uint64_t a = lo + std::uint64_t{first} * cb.page_size;
        const std::uint64_t b =
            lo + std::uint64_t{std::min(first + n, cb.num_pages)} * cb.page_size;
        return n > 0 && off >= a && end <= b;
      };
      if (in_pages(cb.wr_page, cb.reserved) || (!write && in_pages(cb.rd_page, cb.waited)))
        return;
      site = std::string(op) + (write ? " write " : " read ") + cb_name(i);
      message =
          std::string(op) + (write ? " writes " : " reads ") + who + "bytes " +
          range_str(off - lo, size) + " of " + cb_name(i) +
          (write ? " outside the pages reserved with cb_reserve_back (" +
                       count(cb.reserved, "page") + " reserved)"
                 : " outside the pages waited for with cb_wait_front (" + count(cb.waited, "page") +
                       " waited, " + count(cb.reserved, "page") + " reserved)");
    }
    if (!message.empty()) {
      violation(site, message);
      return;
    }
  }
  violation(std::string(op) + " outside L1 buffers",
            std::string(op) + ": L1 " + range_str(off, size) + (who.empty() ? " " : " of " + who) +
                "is outside any circular buffer, semaphore or L1 buffer");
}

struct Target {
  std::uint8_t* ptr;
  timing::Endpoint at;
  CoreState* core = nullptr; // a worker core of this launch
  std::uint64_t offset = 0;
};

// The semaphore a worker-core access lands on, if any.
std::optional<std::uint32_t> semaphore_id(const Target& t) {
  if (t.core == nullptr)
    return std::nullopt;
  return semaphore_at(*t.core, t.offset);
}

// Resolves a NoC address to host memory, checking that it lies inside a buffer.
Target resolve(std::uint64_t noc_addr, std::uint32_t size, bool write, const char* op) {
  DeviceState& dev = active_device();
  if (noc_addr & kMulticastFlag)
    fail(std::string(op) + ": " + hex(noc_addr) + " is a multicast address");
  const std::uint32_t xy = static_cast<std::uint32_t>(noc_addr >> kLocalBits);
  const std::uint32_t x = xy & 0x3f, y = (xy >> 6) & 0x3f;
  const std::uint64_t off = noc_addr & kLocalMask;
  for (std::uint32_t b = 0; b < dev.dram_banks(); ++b) {
    if (dev.dram_bank_noc(b) != CoreCoord{x, y})
      continue;
    for (const auto& a : dev.allocations) {
      if (a.alive && a.dram && off >= a.address && off + size <= a.address + a.bytes_per_bank) {
        return {dev.dram(b) + off, {.bank = static_cast<int>(b)}};
      }
    }
    fail(std::string(op) + ": DRAM bank " + std::to_string(b) + " " + range_str(off, size) +
         " is outside any buffer");
  }
  const std::optional<CoreCoord> at = dev.worker_at(x, y);
  if (!at) {
    fail(std::string(op) + ": NoC (" + std::to_string(x) + "," + std::to_string(y) +
         ") is not a DRAM bank or a worker core of the grid");
  }
  const CoreCoord logical = *at;
  const std::uint32_t index = dev.core_index(logical);
  CoreState* core = dev.launch_cores.empty() ? nullptr : dev.launch_cores[index];
  if (off + size > dev.l1_size())
    fail(std::string(op) + ": L1 " + range_str(off, size) + " is beyond the end of L1");
  const std::string who =
      "core (" + std::to_string(logical.x) + "," + std::to_string(logical.y) + ") ";
  check_l1(core, static_cast<std::uint32_t>(off), size, write, op,
           core == current().core ? "" : who);
  return {dev.l1(index) + off, {.core = static_cast<int>(index)}, core, off};
}

std::uint8_t* local(std::uint32_t addr, std::uint32_t size, bool write, const char* op) {
  CoreState& core = *current().core;
  const std::uint32_t off = to_offset(core, addr, op);
  if (std::uint64_t{off} + size > active_device().l1_size())
    fail(std::string(op) + ": local L1 " + range_str(off, size) + " is beyond the end of L1");
  check_l1(&core, off, size, write, op, "");
  return core.l1 + off;
}

std::uint64_t encode(std::uint32_t x, std::uint32_t y, std::uint64_t off) {
  return (std::uint64_t{(y << 6) | x} << kLocalBits) | off;
}
} // namespace

std::uint32_t runtime_arg(int index) {
  const Fiber& f = current();
  if (index >= 0 && static_cast<std::size_t>(index) < f.args->size())
    return (*f.args)[index];
  const std::string message = "get_arg_val(" + std::to_string(index) + "): runtime arg " +
                              std::to_string(index) +
                              " was never set (SetRuntimeArgs gave this core " +
                              count(static_cast<std::uint32_t>(f.args->size()), "arg") + ")";
  // The dispatcher writes Fiber::arg_slots args for every core of the kernel group, the slots a
  // core was not given zero (tt_metal/impl/program/dispatch.cpp, generate_runtime_args_cmds:
  // "With watcher off, the buffer stays zero-initialized"). Past them lie the next kernel's args
  // or stale L1, which the emulator does not have: an error in both modes.
  if (index < 0 || static_cast<std::size_t>(index) >= f.arg_slots)
    fail(message);
  violation("get_arg_val(" + std::to_string(index) + ")", message);
  return 0;
}
std::uint32_t common_runtime_arg(int index) {
  const Fiber& f = current();
  if (index < 0 || static_cast<std::size_t>(index) >= f.kernel->common_args.size()) {
    fail("get_common_arg_val(" + std::to_string(index) + "): common runtime arg " +
         std::to_string(index) + " was never set (SetCommonRuntimeArgs gave " +
         count(static_cast<std::uint32_t>(f.kernel->common_args.size()), "arg") + ")");
  }
  return f.kernel->common_args[index];
}

void cb_reserve_back(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_reserve_back", pages);
  current().cb_use[cb].produces = true;
  block(Wait{WaitKind::Reserve,
             static_cast<std::uint32_t>(cb),
             static_cast<std::uint32_t>(pages),
             nullptr,
             0,
             false,
             {}});
  timing::cb_reserve(current(), s, static_cast<std::uint32_t>(pages));
  s.reserved = std::max(s.reserved, static_cast<std::uint32_t>(pages));
}

void cb_push_back(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_push_back", pages);
  const auto n = static_cast<std::uint32_t>(pages);
  const std::string call = "cb_push_back(" + cb_name(cb) + ", " + std::to_string(pages) + ")";
  if (n > s.reserved)
    violation(call, call + ": pushes " + count(n, "page") + " but only " +
                        count(s.reserved, "page") + " reserved with cb_reserve_back");
  if (s.wr_page + n > s.num_pages) {
    fail(call + ": pushing " + count(n, "page") + " at page " + std::to_string(s.wr_page) +
         " runs past the end of " + cb_name(cb) + " (" + count(s.num_pages, "page") +
         "); pushes must add up to exactly " + std::to_string(s.num_pages) +
         " per lap of the ring");
  }
  timing::cb_push(current(), s, n);
  // Without the watcher the hardware has no count of reserved pages: a push moves the write
  // pointer and pages_received (cb_push_back in api/dataflow/dataflow_api.h) whatever was reserved.
  s.reserved -= std::min(n, s.reserved);
  s.wr_page = (s.wr_page + n) % s.num_pages;
  s.received += n;
  CbUse& use = current().cb_use[cb];
  use.produces = true;
  use.pushed += n;
  s.pack_index = 0;
  note_progress();
}

void cb_wait_front(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_wait_front", pages);
  current().cb_use[cb].consumes = true;
  block(Wait{WaitKind::Front,
             static_cast<std::uint32_t>(cb),
             static_cast<std::uint32_t>(pages),
             nullptr,
             0,
             false,
             {}});
  timing::cb_wait(current(), s, static_cast<std::uint32_t>(pages), "cb_wait_front");
  s.waited = std::max(s.waited, static_cast<std::uint32_t>(pages));
}

void cb_pop_front(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_pop_front", pages);
  const auto n = static_cast<std::uint32_t>(pages);
  const std::string call = "cb_pop_front(" + cb_name(cb) + ", " + std::to_string(pages) + ")";
  if (n > s.waited)
    violation(call, call + ": pops " + count(n, "page") + " but only " + count(s.waited, "page") +
                        " waited for with cb_wait_front");
  if (s.rd_page + n > s.num_pages) {
    fail(call + ": popping " + count(n, "page") + " at page " + std::to_string(s.rd_page) +
         " runs past the end of " + cb_name(cb) + " (" + count(s.num_pages, "page") +
         "); pops must add up to exactly " + std::to_string(s.num_pages) + " per lap of the ring");
  }
  // A write sends from L1 after it is issued, until it is flushed: the pages popped must not be
  // among its sources, or the producer may overwrite them while they are on their way.
  const std::uint32_t lo = s.address + s.rd_page * s.page_size, hi = lo + n * s.page_size;
  for (const auto& [at, bytes] : current().noc_pending.write_sources)
    if (at < hi && lo < at + bytes)
      fail(call + ": pops pages that a NoC write of this kernel may still be sending from " +
           range_str(at, bytes) +
           " (noc_async_writes_flushed or noc_async_write_barrier before cb_pop_front)");
  timing::cb_pop(current(), s, n);
  // As cb_pop_front on the chip: the read pointer and pages_acked move whatever was waited for.
  s.waited -= std::min(n, s.waited);
  s.rd_page = (s.rd_page + n) % s.num_pages;
  s.acked += n;
  CbUse& use = current().cb_use[cb];
  use.consumes = true;
  use.popped += n;
  note_progress();
}

bool cb_pages_reservable_at_back(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_pages_reservable_at_back", pages);
  if (s.free_pages() >= static_cast<std::uint32_t>(pages)) {
    timing::cb_reserve(current(), s, static_cast<std::uint32_t>(pages));
    return true;
  }
  timing::poll(current(), "cb_pages_reservable_at_back(" + cb_name(cb) + ")");
  block(Wait{WaitKind::Poll, static_cast<std::uint32_t>(cb), static_cast<std::uint32_t>(pages),
             nullptr, 0, false,
             "cb_pages_reservable_at_back(" + cb_name(cb) + ", " + std::to_string(pages) + ")"});
  return false;
}
bool cb_pages_available_at_front(std::int32_t cb, std::int32_t pages) {
  CbState& s = cb_at(cb, "cb_pages_available_at_front", pages);
  if (s.available() >= static_cast<std::uint32_t>(pages)) {
    timing::cb_wait(current(), s, static_cast<std::uint32_t>(pages), "cb_pages_available_at_front");
    return true;
  }
  timing::poll(current(), "cb_pages_available_at_front(" + cb_name(cb) + ")");
  block(Wait{WaitKind::Poll, static_cast<std::uint32_t>(cb), static_cast<std::uint32_t>(pages),
             nullptr, 0, false,
             "cb_pages_available_at_front(" + cb_name(cb) + ", " + std::to_string(pages) + ")"});
  return false;
}

std::uint32_t cb_write_ptr(std::uint32_t cb) {
  const CbState& s = cb_at(static_cast<std::int32_t>(cb), "get_write_ptr", 0);
  return window_base(*current().core) + s.address + s.wr_page * s.page_size;
}
std::uint32_t cb_read_ptr(std::uint32_t cb) {
  const CbState& s = cb_at(static_cast<std::int32_t>(cb), "get_read_ptr", 0);
  return window_base(*current().core) + s.address + s.rd_page * s.page_size;
}
CbInterfaceState cb_interface(std::uint32_t cb) {
  const CbState& s = cb_at(static_cast<std::int32_t>(cb), "get_local_cb_interface", 0);
  const std::uint32_t base = window_base(*current().core) + s.address;
  return {s.num_pages * s.page_size,
          base + s.num_pages * s.page_size,
          s.page_size,
          s.num_pages,
          base + s.rd_page * s.page_size,
          base + s.wr_page * s.page_size,
          s.acked & 0xffffu,
          s.received & 0xffffu};
}
std::uint8_t cb_data_format(std::uint32_t cb) {
  return static_cast<std::uint8_t>(cb_at(static_cast<std::int32_t>(cb), "TileSlice", 0).format);
}
float bfp_value(std::uint8_t code, std::uint8_t shared_exp, bool bfp4) {
  return bfp4 ? bfp4::decode_value(code, shared_exp) : bfp8::decode_value(code, shared_exp);
}
std::uint32_t cb_page_size(std::uint32_t cb) {
  return cb_at(static_cast<std::int32_t>(cb), "get_tile_size", 0).page_size;
}

void noc_read_state_set(std::uint8_t noc, std::uint64_t src, std::uint32_t size) {
  if (noc > 1)
    fail("set_async_read_state: NoC " + std::to_string(noc) + " does not exist (0 or 1)");
  current().noc_read_state[noc] = {true, src, size};
}

NocReadState noc_read_state(std::uint8_t noc) {
  if (noc > 1)
    fail("async_read_with_state: NoC " + std::to_string(noc) + " does not exist (0 or 1)");
  const auto& s = current().noc_read_state[noc];
  if (!s.set)
    fail("async_read_with_state: no read state was set on NoC " + std::to_string(noc) +
         " with set_async_read_state");
  return {s.src, s.size};
}

void noc_read(std::uint64_t src, std::uint32_t dst, std::uint32_t size) {
  const Target from = resolve(src, size, false, "noc_async_read");
  std::uint8_t* to = local(dst, size, true, "noc_async_read");
  if (from.at.bank < 0 || dram_holds_bytes(true))
    std::memmove(to, from.ptr, size);
  ++current().noc_pending.reads;
  timing::read(current(), from.at, size);
}

namespace {
// Records that a write of this kernel sends from L1 [at, at + bytes) until it is flushed.
void pending_write(std::uint32_t at, std::uint32_t bytes) {
  auto& sources = current().noc_pending.write_sources;
  const std::pair<std::uint32_t, std::uint32_t> range{at, bytes};
  if (std::find(sources.begin(), sources.end(), range) == sources.end())
    sources.push_back(range);
}
} // namespace

// A write becomes visible at its destination only after the timing model has priced it: pricing
// may yield to kernels whose clocks are behind (timing.cpp, yield_if_behind), and a kernel waiting
// on a semaphore this write sets must not see the new value before the time it lands is recorded
// (it would resume without stalling). So: price, then store and record, with no yield between.
void noc_write(std::uint32_t src, std::uint64_t dst, std::uint32_t size) {
  const std::uint8_t* from = local(src, size, false, "noc_async_write");
  const Target to = resolve(dst, size, true, "noc_async_write");
  const double landed = timing::write(current(), to.at, size);
  if (to.at.bank < 0 || dram_holds_bytes(true))
    std::memmove(to.ptr, from, size);
  pending_write(to_offset(*current().core, src, "noc_async_write"), size);
  if (const auto sem = semaphore_id(to))
    timing::semaphore_written(*to.core, *sem, landed);
  note_progress();
}

void noc_write_multicast(std::uint32_t src, std::uint64_t dst, std::uint32_t size,
                         std::uint32_t num_dests, bool include_self, std::uint8_t noc) {
  if (!(dst & kMulticastFlag))
    fail("noc_async_write_multicast: " + hex(dst) + " is not a multicast address");
  const std::uint8_t* from = local(src, size, false, "noc_async_write_multicast");
  const std::uint32_t rect = static_cast<std::uint32_t>((dst & ~kMulticastFlag) >> kLocalBits);
  std::uint32_t x0 = rect & 0x3f, y0 = (rect >> 6) & 0x3f, x1 = (rect >> 12) & 0x3f,
                y1 = (rect >> 18) & 0x3f;
  // NOC 0 runs towards larger x and y, NOC 1 towards smaller: a rectangle starts at its smallest
  // corner on NOC 0 and at its largest on NOC 1 (kernels on NOC 1 swap start and end, as the SDK's
  // matmul_multicore_reuse_mcast readers and ttnn's matmul program factories do).
  if (noc == 1) {
    std::swap(x0, x1);
    std::swap(y0, y1);
  }
  if (x0 > x1 || y0 > y1) {
    const bool n1 = noc == 1;
    fail("noc_async_write_multicast: on NOC " + std::to_string(noc) + " a rectangle runs from " +
         (n1 ? "largest" : "smallest") + " to " + (n1 ? "smallest" : "largest") + " (x, y); (" +
         std::to_string(n1 ? x1 : x0) + "," + std::to_string(n1 ? y1 : y0) + ")-(" +
         std::to_string(n1 ? x0 : x1) + "," + std::to_string(n1 ? y0 : y1) + ") does not");
  }
  const std::uint64_t off = dst & kLocalMask;
  const CoreState& self = *current().core;
  std::vector<Target> targets;
  for (std::uint32_t y = y0; y <= y1; ++y) {
    for (std::uint32_t x = x0; x <= x1; ++x) {
      if (!active_device().worker_at(x, y))
        continue; // no worker core of the grid
      if (!include_self && CoreCoord{x, y} == self.noc)
        continue;
      targets.push_back(resolve(encode(x, y, off), size, true, "noc_async_write_multicast"));
    }
  }
  const auto delivered = static_cast<std::uint32_t>(targets.size());
  if (delivered != num_dests) {
    fail("noc_async_write_multicast: num_dests is " + std::to_string(num_dests) +
         " but the rectangle (" + std::to_string(x0) + "," + std::to_string(y0) + ")-(" +
         std::to_string(x1) + "," + std::to_string(y1) + ") holds " + std::to_string(delivered) +
         " destination cores");
  }
  pending_write(to_offset(self, src, "noc_async_write_multicast"), size);
  const double landed = timing::multicast(current(), size, delivered, x0, y0, x1, y1);
  for (const Target& t : targets) { // after the pricing (noc_write)
    std::memmove(t.ptr, from, size);
    if (const auto sem = semaphore_id(t))
      timing::semaphore_written(*t.core, *sem, landed);
  }
  note_progress();
}

void noc_semaphore_inc(std::uint64_t addr, std::uint32_t incr) {
  const Target to = resolve(addr, 4, true, "noc_semaphore_inc");
  const double landed = timing::write(current(), to.at, 4); // before the store (noc_write)
  std::uint32_t v = 0;
  std::memcpy(&v, to.ptr, 4);
  v += incr;
  std::memcpy(to.ptr, &v, 4);
  if (const auto sem = semaphore_id(to))
    timing::semaphore_written(*to.core, *sem, landed);
  note_progress();
}

void semaphore_wait(volatile std::uint32_t* sem, std::uint32_t value, bool at_least) {
  block(Wait{WaitKind::Semaphore, 0, 0, sem, value, at_least, {}});
  Fiber& f = current();
  const auto off =
      reinterpret_cast<std::uintptr_t>(sem) - reinterpret_cast<std::uintptr_t>(f.core->l1);
  if (const auto id = semaphore_at(*f.core, off))
    timing::semaphore_waited(f, *id);
}

void semaphore_set(volatile std::uint32_t* sem, std::uint32_t value) {
  *sem = value;
  Fiber& f = current();
  const auto off =
      reinterpret_cast<std::uintptr_t>(sem) - reinterpret_cast<std::uintptr_t>(f.core->l1);
  if (const auto id = semaphore_at(*f.core, off))
    timing::semaphore_written(*f.core, *id, f.time.clock);
  note_progress();
}

void noc_barrier(int kind) {
  auto& pending = current().noc_pending;
  switch (static_cast<timing::Barrier>(kind)) {
  case timing::Barrier::Read:
    pending.reads = 0;
    break;
  case timing::Barrier::Write:
  case timing::Barrier::Flush:
    pending.write_sources.clear();
    break;
  case timing::Barrier::Atomic:
    break;
  case timing::Barrier::Full:
    pending.reads = 0;
    pending.write_sources.clear();
    break;
  }
  timing::barrier(current(), static_cast<timing::Barrier>(kind));
}

// tt-metal's firmware, after kernel_main returns, asserts that the RISC's NoC is idle (brisc.cc /
// ncrisc.cc, "Assert that no noc transactions are outstanding": reads flushed, writes sent; the
// watcher reports DebugAssertNCriscNOCReadsFlushedTripped). The emulator completes every read at
// once, so it checks the kernel's own barriers instead: a kernel must wait for the reads it
// issued before it returns. Writes are not checked here: "sent" needs no call (the SDK's
// matmul_multicore_reuse_mcast senders end without one); cb_pop_front checks what matters about
// them, that a page is not released while a write may still be sending it.
void check_noc_idle() {
  const std::uint32_t n = current().noc_pending.reads;
  if (n != 0)
    fail("kernel returned with " + count(n, "NoC read") +
         " not waited for (noc_async_read_barrier)");
}

std::uint64_t noc_xy_addr(std::uint32_t x, std::uint32_t y, std::uint32_t addr) {
  return encode(x, y, to_offset(*current().core, addr, "get_noc_addr"));
}
std::uint64_t noc_local_addr(std::uint32_t addr) {
  const CoreState& core = *current().core;
  return encode(static_cast<std::uint32_t>(core.noc.x), static_cast<std::uint32_t>(core.noc.y),
                to_offset(core, addr, "get_noc_addr"));
}
std::uint64_t noc_multicast_addr(std::uint32_t x0, std::uint32_t y0, std::uint32_t x1,
                                 std::uint32_t y1, std::uint32_t addr) {
  const std::uint64_t rect = x0 | (y0 << 6) | (x1 << 12) | (y1 << 18);
  return kMulticastFlag | (rect << kLocalBits) |
         to_offset(*current().core, addr, "get_noc_multicast_addr");
}
std::uint64_t interleaved_page_addr(bool dram, std::uint32_t base, std::uint32_t aligned,
                                    std::uint32_t page, std::uint32_t offset) {
  if (dram) {
    const DeviceState& dev = active_device();
    const CoreCoord c = dev.dram_bank_noc(page % dev.dram_banks());
    return encode(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y),
                  std::uint64_t{base} + std::uint64_t{page / dev.dram_banks()} * aligned + offset);
  }
  const DeviceState& dev = active_device();
  const std::uint32_t bank = page % dev.num_cores();
  const CoreCoord c = dev.worker_noc({bank % dev.grid.x, bank / dev.grid.x});
  return encode(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y),
                std::uint64_t{base} + std::uint64_t{page / dev.num_cores()} * aligned + offset);
}
void check_bank_id(bool dram, std::uint32_t bank) {
  const DeviceState& dev = active_device();
  const std::uint32_t banks = dram ? dev.dram_banks() : dev.num_cores();
  if (bank >= banks)
    fail("get_noc_addr_from_bank_id: " + std::string(dram ? "DRAM" : "L1") + " bank " +
         std::to_string(bank) + " does not exist (the device has " + std::to_string(banks) + ")");
}
std::uint32_t semaphore_addr(std::uint32_t id) {
  const CoreState& core = *current().core;
  if (id >= core.num_semaphores) {
    fail("get_semaphore(" + std::to_string(id) + "): the program created " +
         count(core.num_semaphores, "semaphore"));
  }
  const DeviceState& dev = active_device();
  return window_base(core) + dev.semaphore_base() + id * dev.arch.l1_alignment;
}
std::uint8_t* my_noc_x() {
  return current().core->noc_x.data();
}
std::uint8_t* my_noc_y() {
  return current().core->noc_y.data();
}
} // namespace tk::rt::emu
