// Fuzz target: the warpkit-ISA assembler (isa::assemble).
//
// Laws on every program that assembles: its canonical text (isa::disassemble) assembles to
// the same words and kernel configuration and prints back to the same text; its kernel image
// reads back to the same code and launch configuration. Checked with the default encoding
// and with a narrow one (fewer registers, 8-bit immediates).
#include "fuzz.hpp"
#include "image_law.hpp"

#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>
#include <warpkit/isa/encoding.hpp>
#include <warpkit/isa/kernel_image.hpp>
#include <warpkit/isa/program.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using namespace warpkit;

void check(std::string_view text, const isa::encoding_params& enc) {
    isa::program p;
    if (!fuzz::expect_errors([&] { p = isa::assemble(text, "<fuzz>", enc); })) return;
    WARPKIT_FUZZ_LAW(p.code.size() == p.source_line.size());

    const std::string canonical = isa::disassemble(p, enc);
    isa::program again;
    const bool reassembled =
        fuzz::expect_errors([&] { again = isa::assemble(canonical, "<canonical>", enc); });
    WARPKIT_FUZZ_LAW(reassembled);
    WARPKIT_FUZZ_LAW(again.code == p.code);
    WARPKIT_FUZZ_LAW(again.kernel == p.kernel);
    WARPKIT_FUZZ_LAW(isa::disassemble(again, enc) == canonical);

    // The image keeps everything but the name and the shared-memory size; a launch shape too
    // large for the image's fields is a config_error.
    std::string image;
    if (!fuzz::expect_errors([&] { image = isa::write_image(p); })) return;
    isa::program read = fuzz::read_back_image(image, p, isa::image_params{});
    read.kernel.name = p.kernel.name;
    read.kernel.shared_bytes = p.kernel.shared_bytes;
    WARPKIT_FUZZ_LAW(read.kernel == p.kernel);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    check(text, isa::encoding_params{});
    // Few registers and 8-bit immediates: limits the input meets sooner.
    check(text, isa::encoding_params{.dest_width = 3, .src_width = 3, .imm_width = 8});
    return 0;
}
