#pragma once
/// \file
/// `selectable_coalescer`: a coalescer whose rules are a value (`coalescer_kind`), so a GPU
/// built with it coalesces as its params say (`sm.coalescer`): Fermi's 128-byte lines
/// (`line`), compute capability 1.3's half-warp segments (`cc13`, paper 004) or 32-byte
/// sectors (`sector`). The presets use it, and `--set sm.coalescer=sector` changes any
/// preset's coalescing at run time without another compiled GPU type. Each access goes to
/// the chosen static coalescer, so the transactions are exactly that coalescer's.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace warpkit::mem {

/// The coalescers `selectable_coalescer` can be, by the name each reports as `kind`.
enum class coalescer_kind : std::uint8_t {
    line,  ///< "line": one transaction per 128-byte line touched (line_coalescer<128>)
    cc13,  ///< "cc13": compute capability 1.2/1.3 rules per half-warp (cc13_coalescer)
    sector ///< "sector": one transaction per 32-byte sector touched (sector_coalescer)
};

} // namespace warpkit::mem

template <>
struct warpkit::enum_names<warpkit::mem::coalescer_kind> {
    static constexpr std::array<std::string_view, 3> names = {"line", "cc13", "sector"};
};

namespace warpkit::mem {

/// Coalesces as the static coalescer of its kind (see the file comment).
class selectable_coalescer {
public:
    /// Short name for reports; the rules' own name is kind_name().
    static constexpr std::string_view kind = "selectable";

    /// Fermi's line coalescing.
    constexpr selectable_coalescer() = default;
    /// The rules of `k`.
    explicit constexpr selectable_coalescer(coalescer_kind k) noexcept : kind_(k) {}

    /// Which rules apply.
    [[nodiscard]] constexpr coalescer_kind rules() const noexcept { return kind_; }
    /// Their name ("line", "cc13" or "sector").
    [[nodiscard]] constexpr std::string_view kind_name() const noexcept {
        return enum_names<coalescer_kind>::names[static_cast<std::size_t>(kind_)];
    }

    /// Fills `out` with the transactions of the access, as the chosen coalescer does.
    template <std::size_t W>
    constexpr void coalesce(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                            lane_mask<W> active, transaction_list<W>& out) const {
        switch (kind_) {
        case coalescer_kind::cc13:
            cc13_coalescer{}.coalesce(addr, access_bytes, active, out);
            return;
        case coalescer_kind::sector:
            sector_coalescer{}.coalesce(addr, access_bytes, active, out);
            return;
        case coalescer_kind::line:
            break;
        }
        line_coalescer<128>{}.coalesce(addr, access_bytes, active, out);
    }

private:
    coalescer_kind kind_ = coalescer_kind::line;
};

/// The coalescer of type C for params that name `k`: a selectable_coalescer of kind `k`, or a
/// static coalescer as it is (its kind is its type's).
template <class C>
[[nodiscard]] constexpr C make_coalescer(coalescer_kind k) noexcept {
    if constexpr (std::is_same_v<C, selectable_coalescer>)
        return C(k);
    else
        return C{};
}

/// The coalescer_kind a static coalescer type C is, or `fallback` when it is none of them (a
/// selectable_coalescer, a line_coalescer of other than 128-byte lines, a user's own type).
template <class C>
[[nodiscard]] constexpr coalescer_kind kind_of(coalescer_kind fallback) noexcept {
    if constexpr (std::is_same_v<C, line_coalescer<128>>)
        return coalescer_kind::line;
    else if constexpr (std::is_same_v<C, cc13_coalescer>)
        return coalescer_kind::cc13;
    else if constexpr (std::is_same_v<C, sector_coalescer>)
        return coalescer_kind::sector;
    else
        return fallback;
}

} // namespace warpkit::mem
