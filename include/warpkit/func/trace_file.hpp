#pragma once
/// \file
/// `trace_file`: an input stream over a trace file that is plain text, xz-compressed (`.xz`,
/// read through liblzma) or gzip-compressed (`.gz`, read through zlib), decompressed as it
/// is read, a 64 KiB buffer at a time, so a trace of any size streams through bounded memory.
/// The compression is recognised by the file's first bytes (xz: FD 37 7A 58 5A 00, gzip:
/// 1F 8B), not its name. Opening a missing file, a directory or an unreadable one, and a
/// corrupt or truncated compressed stream, throw warpkit::error naming the path and the
/// reason.
///
/// Programs that include this header link liblzma and zlib (`-llzma -lz`; in CMake
/// `LibLZMA::LibLZMA ZLIB::ZLIB`); the rest of the library needs neither.

#include <warpkit/core/error.hpp>

#include <lzma.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <system_error>

namespace warpkit::func {

/// How a trace file is stored.
enum class trace_compression : std::uint8_t { none, xz, gzip };

namespace detail {

// A stream buffer that decompresses a FILE as it is read.
class decompressing_buffer : public std::streambuf {
public:
    explicit decompressing_buffer(const std::filesystem::path& path) : path_(path.string()) {
        std::error_code ec;
        const auto st = std::filesystem::status(path, ec);
        if (ec) fail_(ec.message());
        if (std::filesystem::is_directory(st)) fail_("it is a directory");
        errno = 0;
        file_.reset(std::fopen(path.c_str(), "rb"));
        if (!file_) fail_(std::generic_category().message(errno != 0 ? errno : EIO));
        fill_input_();
        const auto* b = in_.data();
        if (in_size_ >= 6 && b[0] == 0xFD && b[1] == '7' && b[2] == 'z' && b[3] == 'X' &&
            b[4] == 'Z' && b[5] == 0) {
            kind_ = trace_compression::xz;
            if (lzma_stream_decoder(&xz_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
                fail_("cannot start the xz decoder");
            xz_open_ = true;
        } else if (in_size_ >= 2 && b[0] == 0x1F && b[1] == 0x8B) {
            kind_ = trace_compression::gzip;
            // 15 + 32: a gzip or zlib header, the largest window.
            if (inflateInit2(&gz_, 15 + 32) != Z_OK) fail_("cannot start the gzip decoder");
            gz_open_ = true;
        }
    }
    ~decompressing_buffer() override {
        if (xz_open_) lzma_end(&xz_);
        if (gz_open_) inflateEnd(&gz_);
    }
    decompressing_buffer(const decompressing_buffer&) = delete;
    decompressing_buffer& operator=(const decompressing_buffer&) = delete;

    [[nodiscard]] trace_compression compression() const noexcept { return kind_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const std::size_t n = produce_();
        if (n == 0) return traits_type::eof();
        char* out = reinterpret_cast<char*>(out_.data());
        setg(out, out, out + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    static constexpr std::size_t chunk = 65536;

    [[noreturn]] void fail_(const std::string& why) const {
        throw error("cannot read '" + path_ + "': " + why);
    }
    // Reads the next compressed (or plain) bytes into in_; false at the end of the file.
    bool fill_input_() {
        in_size_ = std::fread(in_.data(), 1, in_.size(), file_.get());
        in_pos_ = 0;
        if (in_size_ == 0 && std::ferror(file_.get()) != 0)
            fail_(std::generic_category().message(errno != 0 ? errno : EIO));
        return in_size_ > 0;
    }
    // Fills out_ with the next bytes of text; 0 at the end.
    std::size_t produce_() {
        switch (kind_) {
        case trace_compression::none: {
            if (in_pos_ == in_size_ && !fill_input_()) return 0;
            const std::size_t n = in_size_ - in_pos_;
            std::copy_n(in_.data() + in_pos_, n, out_.data());
            in_pos_ = in_size_;
            return n;
        }
        case trace_compression::xz:
            return produce_xz_();
        case trace_compression::gzip:
            return produce_gzip_();
        }
        return 0;
    }
    // Gives the decoder the next compressed bytes; false at the end of the file.
    template <class Stream, class Size>
    bool feed_(Stream& z) {
        if (z.avail_in != 0) return true;
        if (in_pos_ == in_size_ && !fill_input_()) return false;
        z.next_in = in_.data() + in_pos_;
        z.avail_in = static_cast<Size>(in_size_ - in_pos_);
        in_pos_ = in_size_;
        return true;
    }
    std::size_t produce_xz_() {
        xz_.next_out = out_.data();
        xz_.avail_out = out_.size();
        while (xz_.avail_out == out_.size() && !ended_) {
            const bool more = feed_<lzma_stream, std::size_t>(xz_);
            const lzma_ret r = lzma_code(&xz_, more ? LZMA_RUN : LZMA_FINISH);
            if (r == LZMA_STREAM_END) {
                ended_ = true;
            } else if (r == LZMA_BUF_ERROR) { // input ended before the stream did
                fail_("the xz stream is truncated");
            } else if (r != LZMA_OK) {
                fail_("the xz stream is corrupt (liblzma error " +
                      std::to_string(static_cast<int>(r)) + ")");
            }
        }
        return out_.size() - xz_.avail_out;
    }
    std::size_t produce_gzip_() {
        gz_.next_out = out_.data();
        gz_.avail_out = static_cast<uInt>(out_.size());
        while (gz_.avail_out == out_.size() && !ended_) {
            if (!feed_<z_stream, uInt>(gz_)) fail_("the gzip stream is truncated");
            const int r = inflate(&gz_, Z_NO_FLUSH);
            if (r == Z_STREAM_END) {
                // Concatenated members (as `cat a.gz b.gz` makes) go on with the next one.
                if (!feed_<z_stream, uInt>(gz_))
                    ended_ = true;
                else
                    inflateReset(&gz_);
            } else if (r == Z_BUF_ERROR && gz_.avail_in == 0) {
                continue; // needs the next compressed bytes
            } else if (r != Z_OK) {
                fail_(std::string("the gzip stream is corrupt (") +
                      (gz_.msg != nullptr ? gz_.msg : "zlib error " + std::to_string(r)) + ")");
            }
        }
        return out_.size() - gz_.avail_out;
    }

    struct file_closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    std::string path_;
    std::unique_ptr<std::FILE, file_closer> file_;
    std::array<std::uint8_t, chunk> in_{};
    std::array<std::uint8_t, chunk> out_{};
    std::size_t in_size_ = 0;
    std::size_t in_pos_ = 0;
    trace_compression kind_ = trace_compression::none;
    lzma_stream xz_ = LZMA_STREAM_INIT;
    z_stream gz_{};
    bool xz_open_ = false;
    bool gz_open_ = false;
    bool ended_ = false;
};

} // namespace detail

/// A trace file read as text, decompressed on the fly when it is xz or gzip.
class trace_file : public std::istream {
public:
    /// Opens `path`; throws warpkit::error naming it when it cannot be read.
    explicit trace_file(const std::filesystem::path& path)
        : std::istream(nullptr), buffer_(std::make_unique<detail::decompressing_buffer>(path)) {
        rdbuf(buffer_.get());
        // A corrupt or truncated stream throws from the buffer: let that error through
        // instead of ending the text early.
        exceptions(std::ios::badbit);
    }
    /// How the file is stored.
    [[nodiscard]] trace_compression compression() const noexcept {
        return buffer_->compression();
    }

private:
    std::unique_ptr<detail::decompressing_buffer> buffer_;
};

} // namespace warpkit::func
