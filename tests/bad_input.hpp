#pragma once
// What the bad-input tests of every area share: the message of the error a call throws (its
// class checked exactly) and a scratch folder for files made up for the test.
#include <warpkit/core/error.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>
#include <unistd.h>

namespace bad_input {

/// The message of the warpkit error `f` throws, checking that its class is exactly E.
template <class E, class F>
std::string thrown(F&& f) {
    try {
        f();
    } catch (const warpkit::error& e) {
        CHECK_MESSAGE(typeid(e) == typeid(E), "threw " << typeid(e).name() << ": " << e.what());
        return e.what();
    }
    FAIL("nothing was thrown");
    return {};
}

/// A fresh folder of the test's own (`name` and the process id), removed with its contents at
/// the end.
struct temp_dir {
    std::filesystem::path path;
    explicit temp_dir(const std::string& name)
        : path(std::filesystem::temp_directory_path() /
               ("warpkit-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path);
    }
    ~temp_dir() { std::filesystem::remove_all(path); }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    /// Writes `text` to the file `name` in the folder; returns its path.
    [[nodiscard]] std::filesystem::path write(const std::string& name,
                                              const std::string& text) const {
        std::ofstream(path / name, std::ios::binary) << text;
        return path / name;
    }
};

} // namespace bad_input
