// Fuzz target: the kernel-image reader (isa::read_image) and the bare word reader
// (isa::read_words).
//
// Laws on every image that reads: writing it back and reading that gives the same code and
// launch configuration; its words disassemble to text that assembles to the same words.
// Checked with the default image layout (Table 4.2) and with narrow dimension fields.
#include "fuzz.hpp"
#include "image_law.hpp"

#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>
#include <warpkit/isa/kernel_image.hpp>
#include <warpkit/isa/program.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit;

void check_image(std::string_view text, const isa::image_params& ip) {
    isa::program p;
    if (!fuzz::expect_errors([&] { p = isa::read_image(text, "<fuzz>", ip); })) return;
    WARPKIT_FUZZ_LAW(p.code.size() == p.source_line.size());
    WARPKIT_FUZZ_LAW(p.kernel.grid.count() > 0 && p.kernel.block.count() > 0);
    WARPKIT_FUZZ_LAW(p.kernel.params.size() <= ip.num_params);

    std::string image;
    const bool written = fuzz::expect_errors([&] { image = isa::write_image(p, ip); });
    WARPKIT_FUZZ_LAW(written);
    const isa::program again = fuzz::read_back_image(image, p, ip);
    WARPKIT_FUZZ_LAW(again.kernel == p.kernel);
}

void check_words(std::string_view text) {
    std::vector<std::uint32_t> words;
    if (!fuzz::expect_errors([&] { words = isa::read_words(text, "<fuzz>"); })) return;
    // Any word sequence, canonical or not, survives words -> text -> words.
    const std::string asm_text = isa::disassemble(std::span<const std::uint32_t>(words));
    isa::program p;
    const bool assembled = fuzz::expect_errors([&] { p = isa::assemble(asm_text, "<dis>"); });
    WARPKIT_FUZZ_LAW(assembled);
    WARPKIT_FUZZ_LAW(p.code == words);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    check_image(text, isa::image_params{});
    // Narrow dimension fields and two parameters: limits the input meets sooner.
    check_image(text,
                isa::image_params{.grid_dim_width = 3, .block_dim_width = 5, .num_params = 2});
    check_words(text);
    return 0;
}
