#pragma once
/// \file
/// Readers of Accel-Sim's SASS trace format (the traces its NVBit tracer writes, tracer versions
/// 3 to 5): `kernelslist.g`, the run's commands in order (`MemcpyHtoD,<address>,<bytes>` and
/// one kernel trace file per launch), and each kernel's `.traceg`, read one thread block at a
/// time so that a trace of any size streams through a bounded amount of memory.
///
/// A kernel trace starts with `-key = value` lines (kernel name and id, grid and block
/// dimensions, shared memory, registers, binary version, stream, shared and local memory base
/// addresses, NVBit and tracer versions, whether line numbers are on); then, per thread
/// block, `#BEGIN_TB`, `thread block = x,y,z`, and per warp `warp = w`, `insts = n` and n
/// instruction lines, then `#END_TB`. An instruction line is
///
///     [line] PC mask ndst [Rd...] OPCODE nsrc [Rs...] mem_width [format addresses] [immediate]
///
/// (hexadecimal PC and active mask; the source line number only when line numbers are on;
/// memory addresses only when mem_width > 0, in one of the tracer's three compressions: 0
/// every active lane's address, 1 a base and a stride for a run of consecutive active lanes,
/// 2 a base and the difference of each next active lane's address to the one before; the
/// immediate from tracer version 5 on).
///
/// Every malformed input is a parse_error naming the file, line and column: an unknown line,
/// a count that does not match what follows, a lane outside its block, a thread block outside
/// the grid, a warp twice in one block, a line longer than max_trace_line_bytes.

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace warpkit::func::accelsim {

/// The longest line a trace may hold (bytes): a list of 32 addresses needs under 1 KB.
inline constexpr std::size_t max_trace_line_bytes = 65536;
/// Most registers one instruction may name as destinations or sources.
inline constexpr std::size_t max_trace_registers = 8;

/// A grid or block shape, or a block's index.
struct dim3 {
    std::uint32_t x = 1;
    std::uint32_t y = 1;
    std::uint32_t z = 1;
    [[nodiscard]] std::uint64_t count() const noexcept {
        return std::uint64_t{x} * y * z;
    }
    friend bool operator==(const dim3&, const dim3&) = default;
};

/// One command of kernelslist.g.
struct command {
    enum class kind : std::uint8_t { memcpy_to_device, kernel };
    kind what = kind::kernel;
    std::uint64_t address = 0; ///< memcpy: destination device address
    std::uint64_t bytes = 0;   ///< memcpy: bytes copied
    std::string trace;         ///< kernel: its trace file, as written in the list
    std::size_t line = 0;      ///< the command's line in the list
};

/// The header of a kernel trace.
struct kernel_header {
    std::string name;
    std::uint32_t id = 0;
    dim3 grid{0, 0, 0};
    dim3 block{0, 0, 0};
    std::uint32_t shared_bytes = 0;
    std::uint32_t registers = 0;
    std::uint32_t binary_version = 0; ///< the SASS architecture, 70 for Volta, 86 for Ampere...
    std::uint64_t stream = 0;
    std::uint64_t shared_base = 0;
    std::uint64_t local_base = 0;
    std::string nvbit_version;
    std::uint32_t tracer_version = 0;
    bool line_numbers = false;
    /// `-key = value` lines of keys this reader does not know, in order.
    std::vector<std::pair<std::string, std::string>> other;

    /// Warps of one block.
    [[nodiscard]] std::uint32_t warps_per_block() const noexcept {
        return static_cast<std::uint32_t>((block.count() + 31) / 32);
    }
};

/// How an instruction's memory addresses were written.
enum class address_format : std::uint8_t { list_all = 0, base_stride = 1, base_delta = 2 };

/// One executed warp instruction.
struct trace_instruction {
    std::uint32_t source_line = 0; ///< source line number (0 unless line numbers are on)
    std::uint64_t pc = 0;
    std::uint32_t mask = 0;      ///< active lanes
    std::uint32_t opcode = 0;    ///< index into the reader's opcodes()
    std::uint32_t mem_width = 0; ///< bytes each active lane accesses (0: not a memory access)
    std::int64_t immediate = 0;  ///< tracer version 5 on
    std::uint8_t dst_count = 0;
    std::uint8_t src_count = 0;
    std::array<std::uint16_t, max_trace_registers> dst{};
    std::array<std::uint16_t, max_trace_registers> src{};
    /// Where the active lanes' addresses (lane order) start in the block's addresses.
    std::uint32_t first_address = 0;
    std::size_t line = 0; ///< the instruction's line in the trace file
};

/// One warp of a thread block: its instructions in executed order.
struct warp_trace {
    std::uint32_t warp = 0;
    std::vector<trace_instruction> instructions;
};

/// One thread block: its warps as the trace lists them, and the addresses of their memory
/// instructions (for each memory instruction, one per active lane from first_address on).
struct block_trace {
    dim3 index{0, 0, 0};
    std::vector<warp_trace> warps;
    std::vector<std::uint64_t> addresses;

    /// The address of lane `k`-th active lane of memory instruction `i`.
    [[nodiscard]] std::uint64_t address(const trace_instruction& i, std::uint32_t k) const {
        return addresses[i.first_address + k];
    }
};

namespace detail {

// Lines of a stream with their numbers, bounded in length.
class trace_lines {
public:
    trace_lines(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

    // The next line (without its line end, a trailing '\r' or surrounding spaces); false at
    // the end of the stream.
    bool next(std::string& line) {
        line.clear();
        // Straight from the stream buffer: no sentry per character, and an error a
        // decompressing buffer throws reaches the caller as it is.
        std::streambuf* buf = in_.rdbuf();
        if (buf == nullptr) return false;
        int c = 0;
        bool any = false;
        while ((c = buf->sbumpc()) != std::char_traits<char>::eof()) {
            if (!any) ++number_; // errors while reading name this line
            any = true;
            if (c == '\n') break;
            if (line.size() == max_trace_line_bytes)
                fail(line.size() + 1, "a line longer than " +
                                          std::to_string(max_trace_line_bytes) + " bytes");
            line.push_back(static_cast<char>(c));
        }
        if (!any) return false;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        const std::size_t lead = line.find_first_not_of(" \t");
        line.erase(0, lead == std::string::npos ? line.size() : lead);
        return true;
    }
    [[nodiscard]] std::size_t number() const noexcept { return number_; }
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    [[noreturn]] void fail(std::size_t column, const std::string& message) const {
        throw parse_error(file_, number_, column, message);
    }

private:
    std::istream& in_;
    std::string file_;
    std::size_t number_ = 0;
};

// The space-separated fields of one line, each with its column.
class fields {
public:
    fields(const trace_lines& lines, std::string_view text) : lines_(lines), text_(text) {}

    [[nodiscard]] bool done() {
        skip_();
        return pos_ == text_.size();
    }
    // The next field; an error naming `what` at the end of the line.
    std::string_view next(std::string_view what) {
        skip_();
        if (pos_ == text_.size())
            fail_at(text_.size() + 1, "the line ends where " + std::string(what) + " should be");
        start_ = pos_;
        while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\t')
            ++pos_;
        return text_.substr(start_, pos_ - start_);
    }
    template <class T>
    T number(std::string_view what, int base = 10) {
        const std::string_view f = next(what);
        return parse_number<T>(f, what, base);
    }
    // A hexadecimal number with or without 0x.
    template <class T>
    T hex(std::string_view what) {
        std::string_view f = next(what);
        if (f.size() > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X')) f.remove_prefix(2);
        return parse_number<T>(f, what, 16);
    }
    template <class T>
    T parse_number(std::string_view f, std::string_view what, int base) {
        T v{};
        const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v, base);
        if (ec != std::errc{} || end != f.data() + f.size() || f.empty())
            fail("expected " + std::string(what) + (base == 16 ? " (hexadecimal)" : "") +
                 ", found '" + std::string(f) + "'");
        return v;
    }
    // A register `R<n>` (R255 is the zero register).
    std::uint16_t reg(std::string_view what) {
        const std::string_view f = next(what);
        if (f.size() < 2 || f[0] != 'R')
            fail("expected " + std::string(what) + " (R<n>), found '" + std::string(f) + "'");
        return parse_number<std::uint16_t>(f.substr(1), what, 10);
    }
    // An error at the field read last.
    [[noreturn]] void fail(const std::string& message) const { fail_at(start_ + 1, message); }
    [[noreturn]] void fail_at(std::size_t column, const std::string& message) const {
        lines_.fail(column, message);
    }

private:
    void skip_() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
            ++pos_;
    }
    const trace_lines& lines_;
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t start_ = 0;
};

// "(x,y,z)" or "x,y,z".
inline dim3 parse_dim3(fields& f, std::string_view text, std::string_view what) {
    std::string_view t = text;
    if (t.size() >= 2 && t.front() == '(' && t.back() == ')') t = t.substr(1, t.size() - 2);
    dim3 d;
    std::uint32_t* parts[3] = {&d.x, &d.y, &d.z};
    for (int i = 0; i < 3; ++i) {
        const std::size_t comma = i < 2 ? t.find(',') : t.size();
        if (comma == std::string_view::npos)
            f.fail_at(1, "expected " + std::string(what) + " as (x,y,z), found '" +
                             std::string(text) + "'");
        std::string_view part = t.substr(0, comma);
        while (!part.empty() && part.front() == ' ')
            part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ')
            part.remove_suffix(1);
        *parts[i] = f.parse_number<std::uint32_t>(part, what, 10);
        t = comma < t.size() ? t.substr(comma + 1) : std::string_view{};
    }
    return d;
}

// base + step * k, or an error at the field read last when it leaves the 64-bit address space.
inline std::uint64_t offset_address(const fields& f, std::uint64_t base, std::int64_t step,
                                    int k) {
    __extension__ using wide = __int128;
    const wide a = static_cast<wide>(base) + static_cast<wide>(step) * k;
    if (a < 0 || a > static_cast<wide>(~std::uint64_t{0}))
        f.fail("an address outside the 64-bit address space");
    return static_cast<std::uint64_t>(a);
}

// The text after "key =" of a "key = value" line, or an error.
inline std::string_view value_after(const trace_lines& lines, std::string_view line,
                                    std::string_view key) {
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || line.substr(0, eq).find_first_not_of(' ') == eq)
        lines.fail(1, "expected '" + std::string(key) + " = ...'");
    std::string_view v = line.substr(eq + 1);
    while (!v.empty() && v.front() == ' ')
        v.remove_prefix(1);
    return v;
}

} // namespace detail

/// Reads kernelslist.g from `in` (`file` names it in errors): its MemcpyHtoD commands and
/// kernel trace files in order. Blank lines and `#` comments are skipped.
[[nodiscard]] inline std::vector<command> read_kernel_list(std::istream& in,
                                                           const std::string& file) {
    detail::trace_lines lines(in, file);
    std::vector<command> out;
    std::string line;
    while (lines.next(line)) {
        if (line.empty() || line.front() == '#') continue;
        detail::fields f(lines, line);
        command c;
        c.line = lines.number();
        if (line.rfind("MemcpyHtoD", 0) == 0) {
            std::string_view rest(line);
            const std::size_t a = rest.find(',');
            const std::size_t b = a == std::string_view::npos ? a : rest.find(',', a + 1);
            if (b == std::string_view::npos || rest.find(',', b + 1) != std::string_view::npos)
                lines.fail(1, "expected MemcpyHtoD,<address>,<bytes>");
            std::string_view addr = rest.substr(a + 1, b - a - 1);
            if (addr.size() > 2 && addr[0] == '0' && (addr[1] == 'x' || addr[1] == 'X'))
                addr.remove_prefix(2);
            c.what = command::kind::memcpy_to_device;
            c.address = f.parse_number<std::uint64_t>(addr, "the destination address", 16);
            c.bytes = f.parse_number<std::uint64_t>(rest.substr(b + 1), "the byte count", 10);
        } else {
            const std::string_view name(line);
            const bool trace = name.ends_with(".traceg") || name.ends_with(".traceg.xz") ||
                               name.ends_with(".traceg.gz");
            if (!trace || name.find(' ') != std::string_view::npos)
                lines.fail(1, "expected MemcpyHtoD,<address>,<bytes> or a kernel trace file "
                              "(*.traceg, *.traceg.xz, *.traceg.gz), found '" + line + "'");
            c.what = command::kind::kernel;
            c.trace = line;
        }
        out.push_back(std::move(c));
    }
    return out;
}

/// Reads one kernel trace: the header at construction, then one thread block per next_block.
class kernel_trace_reader {
public:
    /// Reads the header from `in` (`file` names it in errors); `in` must outlive the reader.
    kernel_trace_reader(std::istream& in, std::string file) : lines_(in, std::move(file)) {
        read_header_();
    }

    [[nodiscard]] const kernel_header& header() const noexcept { return header_; }
    /// The opcodes met so far (trace_instruction::opcode indexes them), e.g. "LDG.E.64".
    [[nodiscard]] const std::vector<std::string>& opcodes() const noexcept { return opcodes_; }
    /// Thread blocks read so far.
    [[nodiscard]] std::uint64_t blocks_read() const noexcept { return blocks_read_; }

    /// Reads the next thread block into `out`; false (and `out` emptied) at the end of the
    /// trace.
    bool next_block(block_trace& out) {
        out.warps.clear();
        out.addresses.clear();
        out.index = dim3{0, 0, 0};
        std::string& line = line_;
        if (!pending_) {
            for (;;) {
                if (!lines_.next(line)) {
                    finish_();
                    return false;
                }
                if (!line.empty()) break;
            }
        }
        pending_ = false;
        if (line != "#BEGIN_TB") lines_.fail(1, "expected #BEGIN_TB, found '" + line + "'");
        read_block_(out);
        ++blocks_read_;
        return true;
    }

private:
    void read_header_() {
        std::string& line = line_;
        bool have_grid = false;
        bool have_block = false;
        while (lines_.next(line)) {
            if (line.empty()) continue;
            if (line.front() == '#') {
                if (line == "#BEGIN_TB") pending_ = true;
                break; // "#traces format = ..." or the first block
            }
            if (line.front() != '-')
                lines_.fail(1, "expected a '-key = value' header line, found '" + line + "'");
            const std::size_t eq = line.find('=');
            if (eq == std::string::npos) lines_.fail(1, "expected '-key = value'");
            std::string key = line.substr(1, eq - 1);
            while (!key.empty() && key.back() == ' ')
                key.pop_back();
            const std::string_view value = detail::value_after(lines_, line, key);
            detail::fields f(lines_, value);
            if (key == "kernel name") {
                header_.name = value;
            } else if (key == "kernel id") {
                header_.id = f.number<std::uint32_t>("the kernel id");
            } else if (key == "grid dim") {
                header_.grid = detail::parse_dim3(f, value, "the grid dimensions");
                have_grid = true;
            } else if (key == "block dim") {
                header_.block = detail::parse_dim3(f, value, "the block dimensions");
                have_block = true;
            } else if (key == "shmem") {
                header_.shared_bytes = f.number<std::uint32_t>("the shared memory bytes");
            } else if (key == "nregs") {
                header_.registers = f.number<std::uint32_t>("the registers per thread");
            } else if (key == "binary version") {
                header_.binary_version = f.number<std::uint32_t>("the binary version");
            } else if (key == "cuda stream id") {
                header_.stream = f.number<std::uint64_t>("the stream id");
            } else if (key == "shmem base_addr") {
                header_.shared_base = f.hex<std::uint64_t>("the shared memory base address");
            } else if (key == "local mem base_addr") {
                header_.local_base = f.hex<std::uint64_t>("the local memory base address");
            } else if (key == "nvbit version") {
                header_.nvbit_version = value;
            } else if (key == "accelsim tracer version") {
                header_.tracer_version = f.number<std::uint32_t>("the tracer version");
            } else if (key == "enable lineinfo") {
                header_.line_numbers = f.number<std::uint32_t>("0 or 1") != 0;
            } else {
                header_.other.emplace_back(key, value);
            }
        }
        if (!have_grid || !have_block)
            throw parse_error(lines_.file(), lines_.number(), 1,
                              std::string("the header has no ") +
                                  (have_grid ? "-block dim" : "-grid dim") + " line");
        if (header_.grid.count() == 0 || header_.block.count() == 0 ||
            header_.block.count() > 1024)
            throw parse_error(lines_.file(), lines_.number(), 1,
                              "grid and block dimensions must be at least 1 and a block at "
                              "most 1024 threads");
    }

    void read_block_(block_trace& out) {
        std::string& line = line_;
        bool have_index = false;
        warp_trace* warp = nullptr;
        std::uint64_t expected = 0;
        std::vector<bool> seen(header_.warps_per_block(), false);
        const auto close_warp = [&] {
            if (warp != nullptr && warp->instructions.size() != expected)
                lines_.fail(1, "warp " + std::to_string(warp->warp) + " has " +
                                   std::to_string(warp->instructions.size()) +
                                   " instructions, its insts line said " +
                                   std::to_string(expected));
        };
        while (lines_.next(line)) {
            if (line.empty()) continue;
            if (line == "#END_TB") {
                close_warp();
                if (!have_index) lines_.fail(1, "a thread block without a 'thread block =' line");
                return;
            }
            if (line.rfind("thread block", 0) == 0) {
                if (have_index) lines_.fail(1, "a second 'thread block =' line in one block");
                detail::fields f(lines_, line);
                out.index = detail::parse_dim3(
                    f, detail::value_after(lines_, line, "thread block"), "the thread block index");
                const dim3& g = header_.grid;
                if (out.index.x >= g.x || out.index.y >= g.y || out.index.z >= g.z)
                    lines_.fail(1, "thread block outside the grid (" + std::to_string(g.x) + "," +
                                       std::to_string(g.y) + "," + std::to_string(g.z) + ")");
                const std::uint64_t linear =
                    (std::uint64_t{out.index.z} * g.y + out.index.y) * g.x + out.index.x;
                if (!blocks_seen_.insert(linear).second)
                    lines_.fail(1, "thread block (" + std::to_string(out.index.x) + "," +
                                       std::to_string(out.index.y) + "," +
                                       std::to_string(out.index.z) + ") a second time");
                have_index = true;
            } else if (line.rfind("warp", 0) == 0 && line.find('=') != std::string::npos) {
                close_warp();
                detail::fields f(lines_, detail::value_after(lines_, line, "warp"));
                const auto w = f.number<std::uint32_t>("the warp number");
                if (w >= seen.size())
                    lines_.fail(1, "warp " + std::to_string(w) + " of a block of " +
                                       std::to_string(seen.size()) + " warps");
                if (seen[w]) lines_.fail(1, "warp " + std::to_string(w) + " twice in one block");
                seen[w] = true;
                out.warps.push_back(warp_trace{w, {}});
                warp = &out.warps.back();
                if (!lines_.next(line) || line.rfind("insts", 0) != 0)
                    lines_.fail(1, "expected 'insts = <count>' after the warp line");
                detail::fields n(lines_, detail::value_after(lines_, line, "insts"));
                expected = n.number<std::uint64_t>("the instruction count");
                // A count is only a claim: reserve at most a bounded amount up front.
                warp->instructions.reserve(
                    static_cast<std::size_t>(std::min<std::uint64_t>(expected, 4096)));
            } else if (line == "#BEGIN_TB") {
                lines_.fail(1, "#BEGIN_TB inside a thread block (no #END_TB before it)");
            } else {
                if (warp == nullptr) lines_.fail(1, "an instruction before any 'warp =' line");
                if (warp->instructions.size() == expected)
                    lines_.fail(1, "warp " + std::to_string(warp->warp) +
                                       " has more instructions than its insts line said (" +
                                       std::to_string(expected) + ")");
                warp->instructions.push_back(read_instruction_(line, warp->warp, out));
            }
        }
        lines_.fail(1, "the trace ends inside a thread block (no #END_TB)");
    }

    trace_instruction read_instruction_(const std::string& line, std::uint32_t warp,
                                        block_trace& out) {
        detail::fields f(lines_, line);
        trace_instruction in;
        in.line = lines_.number();
        if (header_.line_numbers) in.source_line = f.number<std::uint32_t>("the source line");
        in.pc = f.hex<std::uint64_t>("the PC");
        in.mask = f.hex<std::uint32_t>("the active mask");
        const std::uint64_t threads = header_.block.count() - std::uint64_t{warp} * 32;
        if (threads < 32 && (in.mask >> threads) != 0)
            f.fail("the active mask has a lane outside the block (warp " + std::to_string(warp) +
                   " holds " + std::to_string(threads) + " threads)");
        in.dst_count = read_registers_(f, in.dst, "destination");
        const std::string_view op = f.next("the opcode");
        if (op.empty() || (op.front() >= '0' && op.front() <= '9'))
            f.fail("expected an opcode, found '" + std::string(op) + "'");
        in.opcode = intern_(op);
        in.src_count = read_registers_(f, in.src, "source");
        in.mem_width = f.number<std::uint32_t>("the memory width");
        if (in.mem_width > 0) read_addresses_(f, in, out);
        if (header_.tracer_version >= 5) in.immediate = f.number<std::int64_t>("the immediate");
        if (!f.done()) {
            (void)f.next("");
            f.fail("unexpected field after the instruction");
        }
        return in;
    }

    std::uint8_t read_registers_(detail::fields& f,
                                 std::array<std::uint16_t, max_trace_registers>& regs,
                                 const char* what) {
        const auto n = f.number<std::uint32_t>(std::string("the ") + what + " register count");
        if (n > max_trace_registers)
            f.fail(std::to_string(n) + " " + what + " registers (at most " +
                   std::to_string(max_trace_registers) + ")");
        for (std::uint32_t i = 0; i < n; ++i)
            regs[i] = f.reg(std::string("a ") + what + " register");
        return static_cast<std::uint8_t>(n);
    }

    void read_addresses_(detail::fields& f, trace_instruction& in, block_trace& out) {
        const auto format = f.number<std::uint32_t>("the address format (0, 1 or 2)");
        const int active = std::popcount(in.mask);
        in.first_address = static_cast<std::uint32_t>(out.addresses.size());
        switch (format) {
        case 0: // every active lane's address
            for (int k = 0; k < active; ++k)
                out.addresses.push_back(f.hex<std::uint64_t>("an address"));
            return;
        case 1: { // base and stride over a run of consecutive active lanes from the first
            const auto base = f.hex<std::uint64_t>("the base address");
            const auto stride = f.number<std::int64_t>("the stride");
            const int first = in.mask == 0 ? 0 : std::countr_zero(in.mask);
            const int run = in.mask == 0 ? 0 : std::countr_one(in.mask >> first);
            if (run != active)
                f.fail("a base and stride for active lanes that are not consecutive");
            for (int k = 0; k < active; ++k)
                out.addresses.push_back(detail::offset_address(f, base, stride, k));
            return;
        }
        case 2: { // base and the difference of each next active lane to the one before
            if (active == 0) f.fail("a base and differences for an instruction with no lane");
            std::uint64_t a = f.hex<std::uint64_t>("the base address");
            out.addresses.push_back(a);
            for (int k = 1; k < active; ++k) {
                a = detail::offset_address(f, a, f.number<std::int64_t>("an address difference"),
                                           1);
                out.addresses.push_back(a);
            }
            return;
        }
        default:
            f.fail("address format " + std::to_string(format) + " (allowed: 0 every address, "
                   "1 base and stride, 2 base and differences)");
        }
    }

    std::uint32_t intern_(std::string_view op) {
        const auto it = opcode_ids_.find(std::string(op));
        if (it != opcode_ids_.end()) return it->second;
        const auto id = static_cast<std::uint32_t>(opcodes_.size());
        opcodes_.emplace_back(op);
        opcode_ids_.emplace(opcodes_.back(), id);
        return id;
    }

    void finish_() {
        if (blocks_read_ == 0)
            throw parse_error(lines_.file(), lines_.number(), 1,
                              "the trace holds no thread block");
    }

    detail::trace_lines lines_;
    kernel_header header_;
    std::string line_;
    bool pending_ = false; // the header ended on #BEGIN_TB
    std::uint64_t blocks_read_ = 0;
    std::vector<std::string> opcodes_;
    std::unordered_map<std::string, std::uint32_t> opcode_ids_;
    std::unordered_set<std::uint64_t> blocks_seen_; // linear indices of the blocks read
};

} // namespace warpkit::func::accelsim
