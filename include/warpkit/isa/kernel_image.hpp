#pragma once
/// \file
/// Kernel images in the configurable GPGPU's memory-file format (paper 004, Table 4.3): a
/// sequence of hexadecimal entries separated by white space, each a 4-bit kind (GRID, BLOCK,
/// PARAM, INSTR, CONST, DATA, WARP, REG, START) above a 32-bit payload. The table's payloads
/// are 32 bits wide (two bits plus six 5-bit groups; INSTR carries a whole instruction word),
/// so an entry is 36 bits: nine hex digits. One kind beyond the table, SHARED (8), carries a
/// kernel's `.shared` bytes per block, so that an image runs like its source; an image without
/// it is a Table 4.3 image and leaves shared memory to the GPU.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/isa/program.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace warpkit::isa {

/// The 4-bit kind of an image entry (bits [35:32]).
enum class image_entry : std::uint8_t {
    grid = 0x0,
    block = 0x1,
    param = 0x2,
    instr = 0x3,
    constant = 0x4,
    data = 0x5,
    warp = 0x6,
    reg = 0x7,
    shared = 0x8, ///< warpkit extension: shared memory per block in bytes
    start = 0xF,
};

/// Image layout parameters (Table 4.2): GRID_DIM_WIDTH / BLOCK_DIM_WIDTH bits per dimension,
/// x in the low bits, then y, then z; NUM_PARAMS parameter registers.
struct image_params {
    std::uint32_t grid_dim_width = 10;
    std::uint32_t block_dim_width = 10;
    std::uint32_t num_params = 16;
    void validate() const {
        check_range("grid_dim_width", grid_dim_width, 1U, 10U);
        check_range("block_dim_width", block_dim_width, 1U, 10U);
        check_range("num_params", num_params, 0U, 16U);
    }
    WARPKIT_FIELDS(image_params, grid_dim_width, block_dim_width, num_params)
};

namespace detail {
inline std::uint64_t image_word(image_entry kind, std::uint32_t payload) noexcept {
    return (std::uint64_t{static_cast<std::uint8_t>(kind)} << 32) | payload;
}
inline std::uint32_t pack_dims(const dim3& d, std::uint32_t w) noexcept {
    return d.x | (d.y << w) | (d.z << (2 * w));
}
} // namespace detail

namespace detail {
/// Calls f(value, line, column) for every hexadecimal value in `text` (white-space separated,
/// optional 0x, '_' separators, `//` comments); a bad token or one wider than `bits` bits is
/// a parse_error naming it (`what`: "entry", "word").
template <class F>
void for_each_hex_value(std::string_view text, std::string_view file, unsigned bits,
                        const char* what, F&& f) {
    std::size_t line = 1;
    std::size_t col = 1;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            col = 1;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++col;
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            continue;
        }
        const std::size_t tl = line;
        const std::size_t tc = col;
        std::size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\r' &&
               text[j] != '\n')
            ++j;
        std::string_view tok = text.substr(i, j - i);
        col += j - i;
        i = j;
        if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
            tok.remove_prefix(2);
        std::string digits;
        for (char d : tok)
            if (d != '_') digits += d;
        std::uint64_t v = 0;
        const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
        if (digits.empty() || ec == std::errc::invalid_argument ||
            p != digits.data() + digits.size())
            throw parse_error(std::string(file), tl, tc,
                              std::string("expected a hexadecimal ") + what + ", found '" +
                                  std::string(tok) + "'");
        if (ec == std::errc::result_out_of_range || (bits < 64 && (v >> bits) != 0))
            throw parse_error(std::string(file), tl, tc,
                              std::string(what) + " '" + std::string(tok) + "' is wider than " +
                                  std::to_string(bits) + " bits");
        f(v, tl, tc);
    }
}
/// Line and column just past the end of `text`.
inline std::pair<std::size_t, std::size_t> end_position(std::string_view text) noexcept {
    std::size_t line = 1;
    std::size_t col = 1;
    for (char c : text) {
        if (c == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}
} // namespace detail

/// Reads a list of bare 32-bit instruction words (hex, white-space separated, `//` comments).
[[nodiscard]] inline std::vector<std::uint32_t> read_words(std::string_view text,
                                                           std::string_view file = "<words>") {
    std::vector<std::uint32_t> words;
    detail::for_each_hex_value(text, file, 32, "word",
                               [&](std::uint64_t v, std::size_t, std::size_t) {
                                   words.push_back(static_cast<std::uint32_t>(v));
                               });
    return words;
}

/// The image of a kernel: GRID, BLOCK, WARP, REG, SHARED, the PARAMs, INSTRs, CONSTs and DATA
/// in order, then START (WARP, REG and SHARED only when set); one entry per line. Throws config_error when a value does not fit.
[[nodiscard]] inline std::string write_image(const kernel_config& k,
                                             const std::vector<std::uint32_t>& code,
                                             const image_params& ip = {}) {
    validate(ip);
    const auto check_dims = [](const char* what, const dim3& d, std::uint32_t w) {
        const std::uint32_t max = (1U << w) - 1;
        check_range(std::string(what) + ".x", d.x, 1U, max);
        check_range(std::string(what) + ".y", d.y, 1U, max);
        check_range(std::string(what) + ".z", d.z, 1U, max);
    };
    check_dims("grid", k.grid, ip.grid_dim_width);
    check_dims("block", k.block, ip.block_dim_width);
    check_range("params", static_cast<std::uint32_t>(k.params.size()), 0U, ip.num_params);
    std::string out;
    const auto put = [&](image_entry kind, std::uint32_t payload) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%09llx\n",
                      static_cast<unsigned long long>(detail::image_word(kind, payload)));
        out += buf;
    };
    put(image_entry::grid, detail::pack_dims(k.grid, ip.grid_dim_width));
    put(image_entry::block, detail::pack_dims(k.block, ip.block_dim_width));
    if (k.warps_per_block != 0) put(image_entry::warp, k.warps_per_block);
    if (k.regs_per_thread != 0) put(image_entry::reg, k.regs_per_thread);
    if (k.shared_bytes != 0) put(image_entry::shared, k.shared_bytes);
    for (auto v : k.params)
        put(image_entry::param, v);
    for (auto v : code)
        put(image_entry::instr, v);
    for (auto v : k.consts)
        put(image_entry::constant, v);
    for (auto v : k.data)
        put(image_entry::data, v);
    put(image_entry::start, 0);
    return out;
}

/// Writes an assembled program's image.
[[nodiscard]] inline std::string write_image(const program& p, const image_params& ip = {}) {
    return write_image(p.kernel, p.code, ip);
}

/// Reads an image. Entries may come in any order before START; `//` starts a comment.
/// Every problem (bad hex digit, entry wider than 36 bits, unknown kind, zero dimension,
/// too many parameters, missing GRID / BLOCK / START, entries after START) is a
/// parse_error at the offending entry.
[[nodiscard]] inline program read_image(std::string_view text, std::string_view file = "<image>",
                                        const image_params& ip = {}) {
    validate(ip);
    program prog;
    bool have_grid = false;
    bool have_block = false;
    bool started = false;
    const auto fail = [&](std::size_t l, std::size_t c, const std::string& msg) {
        throw parse_error(std::string(file), l, c, msg);
    };
    const auto unpack = [&](std::uint32_t payload, std::uint32_t w, const char* what, std::size_t l,
                            std::size_t c) {
        const std::uint32_t mask = (1U << w) - 1;
        dim3 d{payload & mask, (payload >> w) & mask, (payload >> (2 * w)) & mask};
        if (d.x == 0 || d.y == 0 || d.z == 0)
            fail(l, c,
                 std::string(what) + " dimensions must be >= 1 (x " + std::to_string(d.x) + ", y " +
                     std::to_string(d.y) + ", z " + std::to_string(d.z) + ")");
        return d;
    };
    detail::for_each_hex_value(
        text, file, 36, "entry", [&](std::uint64_t v, std::size_t tl, std::size_t tc) {
            if (started) fail(tl, tc, "entry after START");
            const auto kind = static_cast<std::uint32_t>(v >> 32);
            const auto payload = static_cast<std::uint32_t>(v);
            switch (kind) {
            case 0x0:
                prog.kernel.grid = unpack(payload, ip.grid_dim_width, "GRID", tl, tc);
                have_grid = true;
                break;
            case 0x1:
                prog.kernel.block = unpack(payload, ip.block_dim_width, "BLOCK", tl, tc);
                have_block = true;
                break;
            case 0x2:
                if (prog.kernel.params.size() == ip.num_params)
                    fail(tl, tc, "more than " + std::to_string(ip.num_params) + " PARAM entries");
                prog.kernel.params.push_back(payload);
                break;
            case 0x3:
                prog.code.push_back(payload);
                prog.source_line.push_back(tl);
                break;
            case 0x4:
                prog.kernel.consts.push_back(payload);
                break;
            case 0x5:
                prog.kernel.data.push_back(payload);
                break;
            case 0x6:
                prog.kernel.warps_per_block = payload;
                break;
            case 0x7:
                prog.kernel.regs_per_thread = payload;
                break;
            case 0x8:
                prog.kernel.shared_bytes = payload;
                break;
            case 0xF:
                started = true;
                break;
            default:
                fail(tl, tc,
                     "unknown entry kind " + std::to_string(kind) +
                         " (GRID 0, BLOCK 1, PARAM 2, INSTR 3, CONST 4, DATA 5, WARP 6, "
                         "REG 7, SHARED 8, START F)");
            }
        });
    const auto [line, col] = detail::end_position(text);
    if (!have_grid) fail(line, col, "image has no GRID entry");
    if (!have_block) fail(line, col, "image has no BLOCK entry");
    if (!started) fail(line, col, "image has no START entry");
    return prog;
}

} // namespace warpkit::isa
