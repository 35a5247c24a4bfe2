// warpkit-asm: assembles warpkit ISA text into a kernel image (paper 004's hex memory file)
// or bare instruction words, and disassembles either back to text.
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_all(const std::string& path) {
    if (path == "-") return {std::istreambuf_iterator<char>(std::cin), {}};
    std::ifstream in(path, std::ios::binary);
    if (!in) throw warpkit::error("cannot open '" + path + "'");
    return {std::istreambuf_iterator<char>(in), {}};
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

// Bare words: hex values separated by white space, `//` comments allowed.
std::vector<std::uint32_t> read_words(const std::string& text, const std::string& file) {
    std::vector<std::uint32_t> words;
    std::size_t line = 1;
    std::size_t col = 1;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            col = 1;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
            ++col;
            continue;
        }
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])))
            ++j;
        std::string tok = text.substr(i, j - i);
        std::string digits = tok.rfind("0x", 0) == 0 ? tok.substr(2) : tok;
        const bool ok = !digits.empty() && digits.size() <= 8 &&
                        digits.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
        if (!ok)
            throw warpkit::parse_error(file, line, col,
                                       "expected a 32-bit hex word, found '" + tok + "'");
        words.push_back(static_cast<std::uint32_t>(std::stoul(digits, nullptr, 16)));
        col += j - i;
        i = j;
    }
    return words;
}

} // namespace

int main(int argc, char** argv) {
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
    CLI11_PARSE(app, argc, argv);

    const std::string name = input == "-" ? "<stdin>" : input;
    try {
        const std::string text = read_all(input);
        std::string out;
        if (dis) {
            if (looks_like_image(text)) {
                out = warpkit::isa::disassemble(warpkit::isa::read_image(text, name));
            } else {
                const auto w = read_words(text, name);
                out = warpkit::isa::disassemble(std::span<const std::uint32_t>(w));
            }
        } else {
            const auto prog = warpkit::isa::assemble(text, name);
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
            std::ofstream f(output, std::ios::binary);
            if (!f) throw warpkit::error("cannot write '" + output + "'");
            f << out;
        }
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-asm: " << e.what() << '\n';
        return 2;
    }
    return 0;
}
