#pragma once
/// \file
/// `tick_pool`: a fixed set of persistent threads that run one step of a cycle-level
/// simulation together, many times per second. `run(f)` calls f(0) on the calling thread and
/// f(1) .. f(workers) on the pool's threads, and returns when every call has returned: a
/// fork and a join per call, without creating threads (they start with the pool and stop
/// with it). Waiting threads spin for a short while (a simulated cycle lasts microseconds, less
/// than a sleep and wake-up through the kernel), then sleep on the atomic they wait for
/// (C++20 atomic wait), so that a machine with fewer free cores than threads still runs the
/// thread they wait for.
///
/// What the calls do with shared data is the caller's business; the pool only orders them:
/// everything written before run() is visible to every call, and everything the calls wrote
/// is visible after run() returns. An exception thrown by a call is caught and rethrown by
/// run() (the one of the lowest index when several threw).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace warpkit {

class tick_pool {
public:
    /// A pool of `workers` threads besides the caller's (0: run() calls f(0) alone).
    explicit tick_pool(unsigned workers) : errors_(workers + 1) {
        threads_.reserve(workers);
        for (unsigned t = 1; t <= workers; ++t)
            threads_.emplace_back([this, t] { loop_(t); });
    }
    tick_pool(const tick_pool&) = delete;
    tick_pool& operator=(const tick_pool&) = delete;
    ~tick_pool() {
        stop_.store(true, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        generation_.notify_all();
        for (auto& t : threads_)
            t.join();
    }

    /// Threads taking part in a run(): the workers and the caller.
    [[nodiscard]] unsigned size() const noexcept {
        return static_cast<unsigned>(threads_.size()) + 1;
    }

    /// Calls f(t) for t in [0, size()), f(0) on this thread; returns when all have returned.
    template <class F>
    void run(F& f) {
        fn_ = [](void* ctx, unsigned t) { (*static_cast<F*>(ctx))(t); };
        ctx_ = const_cast<void*>(static_cast<const void*>(&f));
        pending_.store(static_cast<unsigned>(threads_.size()), std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        generation_.notify_all();
        call_(0);
        for (unsigned spins = 0;; ++spins) {
            const unsigned left = pending_.load(std::memory_order_acquire);
            if (left == 0) break;
            if (spins < spin_limit)
                pause_();
            else
                pending_.wait(left, std::memory_order_acquire);
        }
        for (auto& e : errors_)
            if (e) {
                std::exception_ptr first = e;
                for (auto& x : errors_)
                    x = nullptr;
                std::rethrow_exception(first);
            }
    }

private:
    void call_(unsigned t) noexcept {
        try {
            fn_(ctx_, t);
        } catch (...) {
            errors_[t] = std::current_exception();
        }
    }
    void loop_(unsigned t) {
        std::uint64_t seen = 0;
        for (;;) {
            std::uint64_t g = 0;
            for (unsigned spins = 0; (g = generation_.load(std::memory_order_acquire)) == seen;
                 ++spins)
                if (spins < spin_limit)
                    pause_();
                else
                    generation_.wait(seen, std::memory_order_acquire);
            seen = g;
            if (stop_.load(std::memory_order_relaxed)) return;
            call_(t);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
        }
    }
    // Polls before sleeping: about 10 us of pause instructions.
    static constexpr unsigned spin_limit = 4096;
    static void pause_() noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }

    std::vector<std::exception_ptr> errors_;
    void (*fn_)(void*, unsigned) = nullptr;
    void* ctx_ = nullptr;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<unsigned> pending_{0};
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

} // namespace warpkit
