#pragma once
/// \file
/// Latency and initiation interval per opcode class, with GTX480 defaults.

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <algorithm>
#include <cstdint>

namespace warpkit::exec {

/// Timing of one opcode class: a result is ready `latency` core cycles after issue, and the
/// unit accepts its next instruction `initiation_interval` cycles after this one.
struct op_timing {
    std::uint32_t latency = 4;
    std::uint32_t initiation_interval = 1;

    void validate() const {
        check_range("latency", latency, 1u, 4096u);
        check_range("initiation_interval", initiation_interval, 1u, 4096u);
    }
    WARPKIT_FIELDS(op_timing, latency, initiation_interval)
};

/// Timing of every opcode class. Defaults are the GTX480 values used by Warped Gates
/// (Section 3.1: simple adds take 4 cycles at an initiation interval of 1): integer
/// add / multiply / multiply-add / divide 4 / 4 / 5 / 145 cycles at intervals 1 / 2 / 1 / 8,
/// single add / multiply / fused multiply-add / divide 4 / 4 / 5 / 39 at 1 / 1 / 1 / 4, double
/// add / multiply / fused multiply-add 8 and divide 330, all at interval 8, SFU 8 at 8. The
/// LD/ST entry is only the unit's address-generation stage: the memory system adds a load's
/// real latency. The GTX480 has no tensor cores: `tensor` (one warp-wide matrix
/// multiply-accumulate, such as PTX wmma.mma m16n16k16) defaults to the double-precision FMA's
/// 8 / 8, what such an instruction costs on the FP pipelines of an SM without tensor units.
struct timing_params {
    op_timing int_add{4, 1};
    op_timing int_mul{4, 2};
    op_timing fp_add{4, 1};
    op_timing fp_mul{4, 1};
    op_timing fp_mad{5, 1};
    op_timing sfu{8, 8};
    op_timing ldst{1, 1};
    op_timing int_mad{5, 1};
    op_timing int_div{145, 8};
    op_timing fp_div{39, 4};
    op_timing dp_add{8, 8};
    op_timing dp_mul{8, 8};
    op_timing dp_fma{8, 8};
    op_timing dp_div{330, 8};
    op_timing tensor{8, 8};

    /// The timing of opcode class `o`.
    [[nodiscard]] constexpr const op_timing& of(op_class o) const noexcept {
        switch (o) {
        case op_class::int_add:
            return int_add;
        case op_class::int_mul:
            return int_mul;
        case op_class::fp_add:
            return fp_add;
        case op_class::fp_mul:
            return fp_mul;
        case op_class::fp_mad:
            return fp_mad;
        case op_class::sfu:
            return sfu;
        case op_class::int_mad:
            return int_mad;
        case op_class::int_div:
            return int_div;
        case op_class::fp_div:
            return fp_div;
        case op_class::dp_add:
            return dp_add;
        case op_class::dp_mul:
            return dp_mul;
        case op_class::dp_fma:
            return dp_fma;
        case op_class::dp_div:
            return dp_div;
        case op_class::tensor:
            return tensor;
        case op_class::ldst:
            break;
        }
        return ldst;
    }

    /// The longest latency among the opcode classes executing on unit class `u` (0 if none).
    [[nodiscard]] constexpr std::uint32_t max_latency(isa::unit_class u) const noexcept {
        std::uint32_t m = 0;
        for (std::size_t i = 0; i < op_class_count; ++i) {
            const auto o = static_cast<op_class>(i);
            if (unit_of(o) == u) m = std::max(m, of(o).latency);
        }
        return m;
    }
    WARPKIT_FIELDS(timing_params, int_add, int_mul, fp_add, fp_mul, fp_mad, sfu, ldst, int_mad,
                   int_div, fp_div, dp_add, dp_mul, dp_fma, dp_div, tensor)
};

} // namespace warpkit::exec
