// warpkit-sweep under mpirun: rank 0 prepares the sweep, owns the table and hands out points
// one at a time; every other rank runs the points it is given as child processes and sends
// each row back. Built with MPI when CMake finds it (WARPKIT_SWEEP_MPI); without it the tool
// never detects an MPI launch and runs on local threads.
#include "driver.hpp"

#include <cstdlib>

#if WARPKIT_SWEEP_MPI

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <mpi.h>

namespace sweep {

namespace {

// Message tags.
constexpr int tag_ready = 1;  // worker -> 0: give me a point (empty)
constexpr int tag_row = 2;    // worker -> 0: a finished point's row (JSON text); give me another
constexpr int tag_failed = 3; // worker -> 0: this rank cannot run points (message text)
constexpr int tag_work = 4;   // 0 -> worker: run this point (one uint64 index)
constexpr int tag_stop = 5;   // 0 -> worker: no more points

// Blocking MPI calls spin; with more ranks than cores (--oversubscribe) a spinning rank 0
// would take a core from a child. These poll with short sleeps instead.
void wait_for_message(int source, MPI_Status& st) {
    auto pause = std::chrono::microseconds(200);
    for (;;) {
        int flag = 0;
        MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag != 0) return;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(20000));
    }
}

std::string receive_text(const MPI_Status& probed) {
    int n = 0;
    MPI_Get_count(&probed, MPI_CHAR, &n);
    std::string text(static_cast<std::size_t>(n), '\0');
    MPI_Recv(text.data(), n, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    return text;
}

void send_text(const std::string& text, int tag) {
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, tag, MPI_COMM_WORLD);
}

// Everyone learns whether rank 0's preparation succeeded (its exit code, 0 when it did),
// without spinning in MPI_Bcast while rank 0 runs its probes.
int share_status(int rank, int size, int status) {
    if (rank == 0) {
        for (int r = 1; r < size; ++r)
            MPI_Send(&status, 1, MPI_INT, r, tag_stop, MPI_COMM_WORLD);
        return status;
    }
    MPI_Status st;
    wait_for_message(0, st);
    MPI_Recv(&status, 1, MPI_INT, 0, tag_stop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return status;
}

int coordinator(const options& o, int size, std::atomic<bool>& stop) {
    std::unique_ptr<sweep_run> run;
    try {
        run = prepare(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warpkit-sweep: %s\n", e.what());
        share_status(0, size, 2);
        return 2;
    }
    share_status(0, size, 0);
    const auto& todo = run->todo();
    std::size_t next = 0;
    int active = size - 1;
    int able = size - 1;
    while (active > 0) {
        MPI_Status st;
        for (;;) {
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (flag != 0) break;
            run->progress();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        const std::string text = receive_text(st);
        if (st.MPI_TAG == tag_failed) {
            std::fprintf(stderr, "warpkit-sweep: rank %d cannot run points: %s\n", st.MPI_SOURCE,
                         text.c_str());
            --active;
            --able;
            continue;
        }
        if (st.MPI_TAG == tag_row) run->finished(json::parse(text));
        if (next < todo.size() && !stop.load()) {
            const std::uint64_t index = todo[next++];
            run->started();
            MPI_Send(&index, 1, MPI_UINT64_T, st.MPI_SOURCE, tag_work, MPI_COMM_WORLD);
        } else {
            MPI_Send(nullptr, 0, MPI_UINT64_T, st.MPI_SOURCE, tag_stop, MPI_COMM_WORLD);
            --active;
        }
    }
    if (able == 0 && next < todo.size()) {
        std::fprintf(stderr, "warpkit-sweep: no rank could run points\n");
        (void)run->finish(true);
        return 2;
    }
    return run->finish(stop.load() && next < todo.size());
}

int worker(const options& o, int rank, std::atomic<bool>& stop) {
    if (share_status(rank, 0, 0) != 0) return 2;
    spec s;
    run_env env;
    try {
        s = load_spec(o.spec_file);
        env.tools = o.tools.empty() ? own_folder() : std::filesystem::path(o.tools);
        env.scratch = make_scratch();
        if (o.keep_outputs) env.keep = outputs_folder(o.out);
    } catch (const std::exception& e) {
        send_text(e.what(), tag_failed);
        return 2;
    }
    send_text("", tag_ready);
    int code = 0;
    for (;;) {
        MPI_Status st;
        wait_for_message(0, st);
        if (st.MPI_TAG == tag_stop) {
            MPI_Recv(nullptr, 0, MPI_UINT64_T, 0, tag_stop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        }
        std::uint64_t index = 0;
        MPI_Recv(&index, 1, MPI_UINT64_T, 0, tag_work, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        json row;
        try {
            row = run_point(s, make_point(s, index), env, 0, &stop);
        } catch (const std::exception& e) {
            // Only a broken scratch folder or memory gets here; the point is still a row.
            row = point_key(s, make_point(s, index));
            for (const auto& c : columns(s))
                if (!row.contains(c)) row[c] = json();
            row["status"] = "failed";
            row["error"] = e.what();
            row["wall_s"] = 0.0;
            code = 1;
        }
        send_text(row.dump(), tag_row);
    }
    std::error_code ec;
    std::filesystem::remove_all(env.scratch, ec);
    return code;
}

} // namespace

bool mpi_launched() noexcept {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(v) != nullptr) return true;
    return false;
}

int run_mpi(const options& o, std::atomic<bool>& stop) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int code = 0;
    if (size < 2) {
        // One rank: nothing to hand out; rank 0 runs the points itself.
        try {
            auto run = prepare(o);
            for (const auto index : run->todo()) {
                if (stop.load()) break;
                run->started();
                run->finished(run_point(run->the_spec(), make_point(run->the_spec(), index),
                                        run->env(), 0, &stop));
                run->progress();
            }
            code = run->finish(stop.load());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "warpkit-sweep: %s\n", e.what());
            code = 2;
        }
    } else {
        try {
            code = rank == 0 ? coordinator(o, size, stop) : worker(o, rank, stop);
        } catch (const std::exception& e) {
            // The table cannot be written, or memory ran out: the other ranks must not wait.
            std::fprintf(stderr, "warpkit-sweep: rank %d: %s\n", rank, e.what());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Finalize();
    return rank == 0 ? code : (code == 2 ? 2 : 0);
}

} // namespace sweep

#else

namespace sweep {

bool mpi_launched() noexcept {
    return false;
}

int run_mpi(const options&, std::atomic<bool>&) {
    return 2;
}

} // namespace sweep

#endif
