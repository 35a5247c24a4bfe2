// Fuzz target: opcode table files (func::sass::read_opcode_table), the `OPCODE kind` lines that
// classify the opcodes a SASS family's table lacks (warpkit-run --trace --opcodes).
//
// Laws on everything that reads: every entry's line lies inside the text, lines increase, the
// opcode is a non-empty word of letters, digits, '_' and '.' not starting with '.', the kind is
// a known one; a table built of the entries finds each entry's opcode as the first entry
// naming it says, for every family.
#include "fuzz.hpp"

#include <warpkit/func/sass_opcodes.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit::func::sass;

std::size_t lines_of(std::string_view text) {
    std::size_t n = 1;
    for (const char c : text)
        n += c == '\n' ? 1 : 0;
    return n;
}

bool word_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

void check_entries(const std::vector<extra_opcode>& entries, std::size_t lines) {
    std::size_t last = 0;
    for (const auto& e : entries) {
        WARPKIT_FUZZ_LAW(e.line > last && e.line <= lines);
        last = e.line;
        WARPKIT_FUZZ_LAW(!e.opcode.empty() && e.opcode.front() != '.');
        for (const char c : e.opcode)
            WARPKIT_FUZZ_LAW(word_char(c));
        WARPKIT_FUZZ_LAW(static_cast<std::size_t>(e.kind) < opcode_kind_count);
    }
    for (std::size_t f = 0; f < family_names.size(); ++f) {
        const opcode_table table(static_cast<family>(f), entries);
        for (const auto& e : entries) {
            opcode_kind first = e.kind;
            for (const auto& other : entries)
                if (other.opcode == e.opcode) {
                    first = other.kind;
                    break;
                }
            WARPKIT_FUZZ_LAW(table.find(e.opcode) == first);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(warpkit::fuzz::as_text(data, size));
    std::istringstream in(text);
    std::vector<extra_opcode> entries;
    if (warpkit::fuzz::expect_errors([&] { entries = read_opcode_table(in, "opcodes"); }))
        check_entries(entries, lines_of(text));
    return 0;
}
