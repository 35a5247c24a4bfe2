#!/usr/bin/env bash
# Helpers shared by scripts/demo, scripts/test and scripts/bench (sourced, not run).
# shellcheck disable=SC2034

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    echo "scripts/lib.sh holds helpers for the other scripts; run scripts/demo or scripts/test" >&2
    exit 2
fi

# ccache keys objects by paths relative to the source tree, so a fresh clone (CI) reuses what
# an earlier build of the same sources compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

# wk_now: seconds since the epoch, with decimals.
wk_now() { date +%s.%N; }

# wk_since <start>: elapsed seconds since <start>, one decimal.
wk_since() { awk -v s="$1" -v e="$(wk_now)" 'BEGIN { printf "%.1f", e - s }'; }

# wk_configure <build-dir> [compiler] -- <cmake -D args...>
#   Configures <build-dir>, reusing it if it exists. The generator (Ninja when available) and
#   the compiler are chosen only on the first configure; the -D options are set every time.
#   Output goes to <build-dir>/warpkit-configure.log and is shown only on failure.
wk_configure() {
    local dir=$1 compiler=$2
    shift 3
    local args=(-S . -B "$dir")
    if [[ ! -f "$dir/CMakeCache.txt" ]]; then
        if command -v ninja >/dev/null 2>&1; then
            args+=(-G Ninja)
        fi
        if [[ -n "$compiler" ]]; then
            args+=(-D "CMAKE_CXX_COMPILER=$compiler")
        fi
    fi
    mkdir -p "$dir"
    if ! cmake "${args[@]}" "$@" >"$dir/warpkit-configure.log" 2>&1; then
        cat "$dir/warpkit-configure.log" >&2
        echo "error: configuring $dir failed (log: $dir/warpkit-configure.log)" >&2
        return 1
    fi
}

# wk_build <build-dir> [cmake --build args...]
#   Builds quietly into <build-dir>/warpkit-build.log; on failure prints the errors (the log
#   without ninja's progress lines).
wk_build() {
    local dir=$1
    shift
    if ! cmake --build "$dir" "$@" >"$dir/warpkit-build.log" 2>&1; then
        grep -v -E '^\[[0-9]+/[0-9]+\] ' "$dir/warpkit-build.log" >&2 || true
        echo "error: building in $dir failed (full log: $dir/warpkit-build.log)" >&2
        return 1
    fi
}
