#pragma once
/// \file
/// Bit-exact packets of the cluster network of paper 000 (front-end sharing): InstPacket
/// (64 bits: 6-bit warp id, 4-bit function-unit id, 6-bit operation id, 16-bit immediate in
/// the first 32 bits; five 5-bit register ids and 7 zero bits in the second), MemPacket (16
/// bits: 2-bit access type, 3-bit slave id, 6-bit warp id, 5-bit register id) and CtrlPacket
/// (4 bits: 1-bit type, 1 = ungroup; 3-bit slave id). Fields are packed most significant
/// first: the first field named occupies the top bits.

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace warpkit::noc {

/// The three packet kinds of the cluster network.
enum class cluster_packet_kind : std::uint8_t { inst, mem, ctrl };

} // namespace warpkit::noc

template <>
struct warpkit::enum_names<warpkit::noc::cluster_packet_kind> {
    static constexpr std::array<std::string_view, 3> names = {"inst", "mem", "ctrl"};
};

namespace warpkit::noc {

/// One field of a packet layout: `bits` wide, lowest bit at `lsb`.
struct packet_field {
    std::string_view name;
    std::uint32_t bits = 0;
    std::uint32_t lsb = 0;
};

/// InstPacket: warp[63:58] fu[57:54] op[53:48] imm[47:32] r0[31:27] r1[26:22] r2[21:17]
/// r3[16:12] r4[11:7], bits 6..0 zero.
inline constexpr std::array<packet_field, 9> inst_layout = {{{"warp", 6, 58},
                                                             {"fu", 4, 54},
                                                             {"op", 6, 48},
                                                             {"imm", 16, 32},
                                                             {"r0", 5, 27},
                                                             {"r1", 5, 22},
                                                             {"r2", 5, 17},
                                                             {"r3", 5, 12},
                                                             {"r4", 5, 7}}};
/// MemPacket: type[15:14] slave[13:11] warp[10:5] reg[4:0].
inline constexpr std::array<packet_field, 4> mem_layout = {
    {{"type", 2, 14}, {"slave", 3, 11}, {"warp", 6, 5}, {"reg", 5, 0}}};
/// CtrlPacket: type[3] slave[2:0].
inline constexpr std::array<packet_field, 2> ctrl_layout = {{{"type", 1, 3}, {"slave", 3, 0}}};

/// The field layout of a packet kind.
[[nodiscard]] constexpr std::span<const packet_field> layout(cluster_packet_kind k) noexcept {
    switch (k) {
    case cluster_packet_kind::inst:
        return inst_layout;
    case cluster_packet_kind::mem:
        return mem_layout;
    case cluster_packet_kind::ctrl:
        return ctrl_layout;
    }
    return {};
}
/// Size of a packet kind in bits (64, 16, 4).
[[nodiscard]] constexpr std::uint32_t packet_bits(cluster_packet_kind k) noexcept {
    return k == cluster_packet_kind::inst ? 64u : k == cluster_packet_kind::mem ? 16u : 4u;
}

/// `w` as `digits` lowercase hex digits (no prefix).
[[nodiscard]] inline std::string to_hex(std::uint64_t w, std::size_t digits) {
    std::string s(digits, '0');
    for (std::size_t i = 0; i < digits; ++i) {
        s[digits - 1 - i] = "0123456789abcdef"[w & 15u];
        w >>= 4;
    }
    return s;
}

/// Packs `values` (one per field, layout order) into a word. A value too wide for its
/// field is a config_error naming "<kind>.<field>".
[[nodiscard]] inline std::uint64_t encode_fields(cluster_packet_kind k,
                                                 std::span<const std::uint64_t> values) {
    const auto fields = layout(k);
    WARPKIT_EXPECTS(values.size() == fields.size());
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::uint64_t max = (std::uint64_t{1} << fields[i].bits) - 1;
        if (values[i] > max)
            throw config_error(
                std::string(enum_names<cluster_packet_kind>::names[static_cast<std::size_t>(k)]) +
                    "." + std::string(fields[i].name),
                std::to_string(values[i]), "[0, " + std::to_string(max) + "]");
        w |= values[i] << fields[i].lsb;
    }
    return w;
}

/// Unpacks a word into field values (layout order, the first layout(k).size() entries). A
/// word with bits outside the packet or set spare bits is a config_error.
[[nodiscard]] inline std::array<std::uint64_t, 9> decode_fields(cluster_packet_kind k,
                                                                std::uint64_t w) {
    const auto fields = layout(k);
    const std::uint32_t bits = packet_bits(k);
    const std::string kind(enum_names<cluster_packet_kind>::names[static_cast<std::size_t>(k)]);
    if (bits < 64 && (w >> bits) != 0)
        throw config_error(kind, "0x" + to_hex(w, 16), "a " + std::to_string(bits) + "-bit word");
    std::uint64_t used = 0;
    std::array<std::uint64_t, 9> v{};
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::uint64_t max = (std::uint64_t{1} << fields[i].bits) - 1;
        v[i] = (w >> fields[i].lsb) & max;
        used |= max << fields[i].lsb;
    }
    if ((w & ~used) != 0)
        throw config_error(kind + ".spare", "0x" + to_hex(w & ~used, 16), "0 (spare bits zero)");
    return v;
}

/// A decoded instruction sent from a master SM to its slaves.
struct inst_packet {
    std::uint32_t warp = 0;             ///< 6 bits
    std::uint32_t fu = 0;               ///< 4 bits, function unit
    std::uint32_t op = 0;               ///< 6 bits, operation
    std::uint32_t imm = 0;              ///< 16 bits, immediate
    std::array<std::uint32_t, 5> reg{}; ///< 5 bits each, r0..r4
    friend constexpr bool operator==(const inst_packet&, const inst_packet&) = default;
};
/// A slave's acknowledgement of a completed memory access.
struct mem_packet {
    std::uint32_t type = 0;  ///< 2 bits, access type
    std::uint32_t slave = 0; ///< 3 bits
    std::uint32_t warp = 0;  ///< 6 bits
    std::uint32_t reg = 0;   ///< 5 bits
    friend constexpr bool operator==(const mem_packet&, const mem_packet&) = default;
};
/// A cluster-control message; type 1 asks to ungroup.
struct ctrl_packet {
    std::uint32_t type = 0;  ///< 1 bit
    std::uint32_t slave = 0; ///< 3 bits
    friend constexpr bool operator==(const ctrl_packet&, const ctrl_packet&) = default;
};
/// CtrlPacket type ID of the ungroup message.
inline constexpr std::uint32_t ctrl_ungroup = 1;

[[nodiscard]] inline std::uint64_t encode(const inst_packet& p) {
    const std::array<std::uint64_t, 9> v = {p.warp,   p.fu,     p.op,     p.imm,   p.reg[0],
                                            p.reg[1], p.reg[2], p.reg[3], p.reg[4]};
    return encode_fields(cluster_packet_kind::inst, v);
}
[[nodiscard]] inline std::uint16_t encode(const mem_packet& p) {
    const std::array<std::uint64_t, 4> v = {p.type, p.slave, p.warp, p.reg};
    return static_cast<std::uint16_t>(encode_fields(cluster_packet_kind::mem, v));
}
[[nodiscard]] inline std::uint8_t encode(const ctrl_packet& p) {
    const std::array<std::uint64_t, 2> v = {p.type, p.slave};
    return static_cast<std::uint8_t>(encode_fields(cluster_packet_kind::ctrl, v));
}
[[nodiscard]] inline inst_packet decode_inst(std::uint64_t w) {
    const auto v = decode_fields(cluster_packet_kind::inst, w);
    inst_packet p;
    p.warp = static_cast<std::uint32_t>(v[0]);
    p.fu = static_cast<std::uint32_t>(v[1]);
    p.op = static_cast<std::uint32_t>(v[2]);
    p.imm = static_cast<std::uint32_t>(v[3]);
    for (std::size_t i = 0; i < 5; ++i)
        p.reg[i] = static_cast<std::uint32_t>(v[4 + i]);
    return p;
}
[[nodiscard]] inline mem_packet decode_mem(std::uint64_t w) {
    const auto v = decode_fields(cluster_packet_kind::mem, w);
    return {static_cast<std::uint32_t>(v[0]), static_cast<std::uint32_t>(v[1]),
            static_cast<std::uint32_t>(v[2]), static_cast<std::uint32_t>(v[3])};
}
[[nodiscard]] inline ctrl_packet decode_ctrl(std::uint64_t w) {
    const auto v = decode_fields(cluster_packet_kind::ctrl, w);
    return {static_cast<std::uint32_t>(v[0]), static_cast<std::uint32_t>(v[1])};
}

} // namespace warpkit::noc
