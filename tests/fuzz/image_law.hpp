#pragma once
// The law both ISA fuzz targets (assembler, kernel_image) check on a program they hold: its
// kernel image, written with a layout, reads back with that layout to the same code.
#include "fuzz.hpp"

#include <warpkit/isa/kernel_image.hpp>
#include <warpkit/isa/program.hpp>

#include <string>

namespace warpkit::fuzz {

/// Reads `image`, written from `p` with layout `ip`, back: the laws are that it reads and
/// holds p's code. Returns the program read, for the caller's law on its kernel
/// configuration (how much of it an image keeps depends on where `p` came from).
inline isa::program read_back_image(const std::string& image, const isa::program& p,
                                    const isa::image_params& ip) {
    isa::program again;
    const bool reads = expect_errors([&] { again = isa::read_image(image, "<written>", ip); });
    WARPKIT_FUZZ_LAW(reads);
    WARPKIT_FUZZ_LAW(again.code == p.code);
    return again;
}

} // namespace warpkit::fuzz
