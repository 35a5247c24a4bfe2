#pragma once
/// \file
/// `ptx::launch`: a prepared kernel with its grid, block, parameter bytes and dynamic shared
/// memory: a func::launchable_kernel that any warpkit GPU runs through func::ptx_source
/// (func/ptx_source.hpp).
///
/// Memory model of execution:
/// - Global addresses are device addresses in func::global_memory (64-bit); module `.global`
///   variables sit from ptx::global_variable_base on (func::load_globals writes them).
/// - Generic addresses (ld / st / atom without a state space, cvta): a generic address in
///   [generic_shared_base, + generic_window_bytes) is the shared-memory offset
///   (address - generic_shared_base) of the executing thread's block; the local, constant and
///   parameter windows work the same way from their bases; any other address is global.
///   `cvta.<space>` adds the window base to an offset in the space, `cvta.to.<space>`
///   subtracts it; `.global` windows are the identity. Device buffers must not be placed in
///   [generic_shared_base, generic_param_base + generic_window_bytes).
/// - Shared memory: one zeroed buffer per block of shared_bytes(): static `.shared`
///   variables, then dynamic shared memory (`.extern .shared`) of dynamic_shared_bytes().
/// - Local memory: one zeroed buffer of kernel::local_bytes() per thread.
/// - Parameter space: the launch's parameter bytes at the offsets the entry declares.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/program.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/kernel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit::ptx {

/// Generic address of shared-memory offset 0.
inline constexpr std::uint64_t generic_shared_base = 0x0000'7000'0000'0000ULL;
/// Generic address of local-memory offset 0 (each thread sees its own local memory).
inline constexpr std::uint64_t generic_local_base = 0x0000'7100'0000'0000ULL;
/// Generic address of constant-bank offset 0.
inline constexpr std::uint64_t generic_const_base = 0x0000'7200'0000'0000ULL;
/// Generic address of kernel-parameter offset 0.
inline constexpr std::uint64_t generic_param_base = 0x0000'7300'0000'0000ULL;
/// Size of each generic window.
inline constexpr std::uint64_t generic_window_bytes = std::uint64_t{1} << 32;

/// An address resolved to its state space: the space and the offset in it (for `.global`,
/// the device address).
struct space_address {
    space sp = space::global;
    std::uint64_t addr = 0;
};

/// The generic address of offset 0 of space `sp` (0 for `.global`, whose window is the
/// identity).
[[nodiscard]] constexpr std::uint64_t window_base(space sp) noexcept {
    switch (sp) {
    case space::shared:
        return generic_shared_base;
    case space::local:
        return generic_local_base;
    case space::constant:
        return generic_const_base;
    case space::param:
        return generic_param_base;
    default:
        return 0;
    }
}

/// `cvta.<space>` (offset to generic address) or `cvta.to.<space>` (generic address to
/// offset) of `a`, cut to the instruction's type.
[[nodiscard]] constexpr std::uint64_t cvta(const instruction& in, std::uint64_t a) noexcept {
    const std::uint64_t base = window_base(in.sp);
    const std::uint64_t v = in.to ? a - base : a + base;
    return truncate(in.t, v);
}

/// The space and offset a generic address falls in.
[[nodiscard]] constexpr space_address decode_generic(std::uint64_t a) noexcept {
    for (const auto sp : {space::shared, space::local, space::constant, space::param}) {
        const std::uint64_t base = window_base(sp);
        if (a >= base && a - base < generic_window_bytes) return {sp, a - base};
    }
    return {space::global, a};
}

/// The space's name in error messages.
[[nodiscard]] constexpr const char* space_name(space sp) noexcept {
    switch (sp) {
    case space::shared:
        return "shared";
    case space::local:
        return "local";
    case space::constant:
        return "constant";
    case space::param:
        return "parameter";
    default:
        return "global";
    }
}

/// Grid and block dimensions.
using dim3 = isa::dim3;

/// Builds a kernel's parameter buffer argument by argument at the offsets the entry declares.
class param_pack {
public:
    explicit param_pack(const kernel& k) : k_(&k), bytes_(k.param_bytes(), 0) {}

    /// The next parameter: `value`'s bytes (its size must be the parameter's).
    template <class T>
    requires std::is_trivially_copyable_v<T> param_pack& add(const T& value) {
        std::uint8_t raw[sizeof(T)];
        std::memcpy(raw, &value, sizeof(T));
        return add_bytes(std::span<const std::uint8_t>(raw, sizeof(T)));
    }
    /// The next parameter as raw bytes (exactly the parameter's size).
    param_pack& add_bytes(std::span<const std::uint8_t> raw) {
        const auto& ps = k_->params();
        if (next_ >= ps.size())
            throw config_error("params[" + std::to_string(next_) + "]", "given",
                               "at most " + std::to_string(ps.size()) + " parameters for `" +
                                   k_->name() + "`");
        const param& p = ps[next_];
        if (raw.size() != p.bytes)
            throw config_error("params[" + std::to_string(next_) + "]",
                               std::to_string(raw.size()) + " bytes",
                               std::to_string(p.bytes) + " bytes (`" + p.name + "`)");
        std::memcpy(bytes_.data() + p.offset, raw.data(), raw.size());
        ++next_;
        return *this;
    }
    /// The parameter buffer; throws config_error unless every parameter was given.
    [[nodiscard]] std::vector<std::uint8_t> bytes() const {
        if (next_ != k_->params().size())
            throw config_error("params", std::to_string(next_) + " given",
                               std::to_string(k_->params().size()) + " parameters for `" +
                                   k_->name() + "`");
        return bytes_;
    }

private:
    const kernel* k_;
    std::vector<std::uint8_t> bytes_;
    std::size_t next_ = 0;
};

/// One kernel launch: a prepared kernel (which must outlive the launch), grid and block
/// dimensions, the parameter buffer and dynamic shared memory per block.
class launch {
public:
    /// Throws config_error for empty or oversized dimensions (more than 1024 threads per
    /// block, a grid of 2^32 or more blocks), a block the entry's `.reqntid` / `.maxntid`
    /// forbid, or a parameter buffer whose size is not the entry's.
    launch(const kernel& k, dim3 grid, dim3 block, std::vector<std::uint8_t> params = {},
           std::uint32_t dynamic_shared_bytes = 0, std::uint32_t warp_size = 32)
        : k_(&k), grid_(grid), block_(block), params_(std::move(params)),
          dynamic_shared_(dynamic_shared_bytes), warp_size_(warp_size) {
        const auto positive = [](const dim3& d) { return d.x > 0 && d.y > 0 && d.z > 0; };
        if (!positive(grid) || grid.count() >= (std::uint64_t{1} << 32))
            throw config_error("grid", text(grid), "positive dimensions, fewer than 2^32 blocks");
        if (!positive(block) || block.count() > 1024)
            throw config_error("block", text(block), "positive dimensions, at most 1024 threads");
        const auto& req = k.reqntid();
        if (req[0] != 0 && (block.x != req[0] || block.y != std::max(req[1], 1U) ||
                            block.z != std::max(req[2], 1U)))
            throw config_error("block", text(block), "the entry's .reqntid");
        const auto& mx = k.maxntid();
        if (mx[0] != 0 &&
            block.count() > std::uint64_t{mx[0]} * std::max(mx[1], 1U) * std::max(mx[2], 1U))
            throw config_error("block", text(block), "at most the entry's .maxntid threads");
        if (params_.size() != k.param_bytes())
            throw config_error("params", std::to_string(params_.size()) + " bytes",
                               std::to_string(k.param_bytes()) + " bytes (the parameters of `" +
                                   k.name() + "`)");
        if (warp_size == 0 || warp_size > 64)
            throw config_error("warp_size", std::to_string(warp_size), "1 to 64");
    }

    /// The prepared kernel.
    [[nodiscard]] const kernel& prepared() const noexcept { return *k_; }
    [[nodiscard]] const dim3& grid() const noexcept { return grid_; }
    [[nodiscard]] const dim3& block() const noexcept { return block_; }
    [[nodiscard]] const std::vector<std::uint8_t>& params() const noexcept { return params_; }
    [[nodiscard]] std::uint32_t dynamic_shared_bytes() const noexcept { return dynamic_shared_; }

    [[nodiscard]] std::uint32_t warp_size() const noexcept { return warp_size_; }
    [[nodiscard]] std::uint32_t blocks() const noexcept {
        return static_cast<std::uint32_t>(grid_.count());
    }
    [[nodiscard]] std::uint32_t threads_per_block() const noexcept {
        return static_cast<std::uint32_t>(block_.count());
    }
    [[nodiscard]] std::uint32_t warps_per_block() const noexcept {
        return (threads_per_block() + warp_size_ - 1) / warp_size_;
    }
    [[nodiscard]] std::uint32_t regs_per_thread() const noexcept { return k_->regs_per_thread(); }
    /// Shared memory per block: static variables, then dynamic shared memory.
    [[nodiscard]] std::uint32_t shared_bytes() const noexcept {
        return dynamic_shared_ != 0 ? k_->dynamic_shared_offset() + dynamic_shared_
                                    : k_->static_shared_bytes();
    }

private:
    static std::string text(const dim3& d) {
        return "[" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) +
               "]";
    }
    const kernel* k_;
    dim3 grid_;
    dim3 block_;
    std::vector<std::uint8_t> params_;
    std::uint32_t dynamic_shared_;
    std::uint32_t warp_size_;
};

} // namespace warpkit::ptx
