#pragma once
/// \file
/// `mem_message`: what an SM's L1 side and the L2 slices exchange over the network on chip
/// (a request, or the reply to one), and where the non-global address spaces live in the
/// physical address space the L2 slices and DRAM channels see.

#include <cstdint>

namespace warpkit::gpu {

/// What a request asks for.
enum class mem_kind : std::uint8_t {
    read,       ///< an L1 data-cache line fill
    const_read, ///< a constant-cache line fill
    tex_read,   ///< a texture-cache line fill
    write,      ///< write data (L1 write-evict / write-through); acknowledged
    atomic      ///< read-modify-write performed at the L2; the reply carries the old values
};

/// A request from an SM, or the reply to one (`reply` set; kind, addr, sm and tag echoed).
struct mem_message {
    std::uint64_t addr = 0;        ///< line address (reads), transaction address (writes, atomics)
    std::uint32_t sm = 0;          ///< the requesting SM
    std::uint32_t tag = 0;         ///< the SM's tag (pending-request-table entry of an atomic)
    std::uint32_t sectors = 1;     ///< sectors of the line a read fetches (1: an unsectored line)
    std::uint32_t data_bytes = 0;  ///< bytes of data this message carries
    std::uint32_t reply_bytes = 0; ///< bytes of data the reply to this request carries
    std::uint64_t sent = 0;        ///< core cycle the SM sent the request (echoed in the reply)
    mem_kind kind = mem_kind::read;
    bool reply = false;
};

/// Constant (and kernel parameter) space starts here in the physical address space, so that
/// constant lines never alias global lines in the L2 and DRAM.
inline constexpr std::uint64_t constant_space_base = std::uint64_t{1} << 40;
/// Local (per-thread spill) space starts here.
inline constexpr std::uint64_t local_space_base = std::uint64_t{2} << 40;

/// Bytes of `m` on the wire: a header and its data.
[[nodiscard]] constexpr std::uint32_t wire_bytes(const mem_message& m,
                                                 std::uint32_t header_bytes) noexcept {
    return header_bytes + m.data_bytes;
}

} // namespace warpkit::gpu
