// warpkit-asm: assembles warpkit ISA text into a kernel image (paper 004's hex memory file)
// or bare instruction words, and disassembles either back to text.
#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_all(const std::string& path) {
    if (path == "-") return {std::istreambuf_iterator<char>(std::cin), {}};
    return warpkit::read_file(path);
}

// A hex file is a kernel image if it holds any entry wider than 32 bits (every image ends
// with START, kind F in bits [35:32]); otherwise it is a list of bare instruction words.
bool looks_like_image(const std::string& text) {
    std::istringstream in(text);
    std::string tok;
    while (in >> tok) {
        if (tok.rfind("//", 0) == 0) {
            std::getline(in, tok);
            continue;
        }
        std::string digits;
        for (char c : tok.rfind("0x", 0) == 0 ? tok.substr(2) : tok)
            if (c != '_') digits += c;
        std::size_t first = digits.find_first_not_of('0');
        if (first != std::string::npos && digits.size() - first > 8) return true;
    }
    return false;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-asm: warpkit ISA assembler and disassembler"};
    std::string input = "-";
    std::string output = "-";
    bool words = false;
    bool dis = false;
    app.add_option("input", input,
                   "source (.s), or with -d a kernel image / word list (- = stdin)");
    app.add_option("-o,--output", output, "output file (- = stdout)");
    app.add_flag("--words", words, "emit only the instruction words, 8 hex digits per line");
    app.add_flag("-d,--disassemble", dis, "disassemble a kernel image or a word list");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    if (app.count("input") == 0)
        if (const auto code = example::refuse_terminal_input("warpkit-asm", "FILE (- for stdin)"))
            return *code;

    const std::string name = input == "-" ? "<stdin>" : input;
    try {
        const std::string text = read_all(input);
        std::string out;
        if (dis) {
            if (looks_like_image(text)) {
                out = warpkit::isa::disassemble(warpkit::isa::read_image(text, name));
            } else {
                const auto w = warpkit::isa::read_words(text, name);
                out = warpkit::isa::disassemble(std::span<const std::uint32_t>(w));
            }
        } else {
            const auto prog = warpkit::isa::assemble(text, name);
            // An image without instructions would load and run off its end.
            if (prog.code.empty())
                throw warpkit::error(name + ":1:1: no instructions (a kernel needs at least one, "
                                            "the last an EXIT)");
            if (words) {
                for (auto w : prog.code) {
                    char buf[16];
                    std::snprintf(buf, sizeof buf, "%08x\n", w);
                    out += buf;
                }
            } else {
                out = warpkit::isa::write_image(prog);
            }
        }
        if (output == "-") {
            std::cout << out;
        } else {
            example::write_text_file(output, out);
        }
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-asm: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-asm", [&] { return tool_main(argc, argv); });
}
