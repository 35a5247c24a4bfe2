# Builds and runs a separate project that consumes warpkit (ctest consumer_<MODE>).
#
#   cmake -D MODE=find_package|add_subdirectory
#         -D WARPKIT_SOURCE_DIR=<src> -D WARPKIT_BINARY_DIR=<build> -D WORK_DIR=<scratch>
#         [-D GENERATOR=<gen>] [-D CXX_COMPILER=<c++>] [-D CXX_COMPILER_LAUNCHER=<ccache>]
#         [-D CONFIG=<cfg>]
#         -P cmake/run_consumer_test.cmake
#
# find_package:     installs <build> to <scratch>/prefix, configures tests/consumer with
#                   CMAKE_PREFIX_PATH=<scratch>/prefix, builds and runs it.
# add_subdirectory: configures tests/consumer/subdir (which add_subdirectory()s warpkit),
#                   builds and runs it, and checks no warpkit test/example/bench was built.
# Any failure is fatal.
cmake_minimum_required(VERSION 3.21)

foreach(var MODE WARPKIT_SOURCE_DIR WARPKIT_BINARY_DIR WORK_DIR)
    if(NOT ${var})
        message(FATAL_ERROR "run_consumer_test.cmake: -D ${var}=... is required")
    endif()
endforeach()
if(NOT CONFIG)
    set(CONFIG RelWithDebInfo)
endif()

function(run step)
    string(JOIN " " printable ${ARGN})
    message(STATUS "[${step}] ${printable}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message("${out}")
        message(FATAL_ERROR "consumer_${MODE}: step '${step}' failed (${rc})")
    endif()
    set(last_output "${out}" PARENT_SCOPE)
endfunction()

# Start clean every time: a stale cache or prefix must not hide a broken package.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(build_dir "${WORK_DIR}/build")

set(configure_args
    -D "CMAKE_BUILD_TYPE=${CONFIG}"
    -D CMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -D CMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(GENERATOR)
    list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
    list(APPEND configure_args -D "CMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(CXX_COMPILER_LAUNCHER)
    list(APPEND configure_args -D "CMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER}")
endif()

if(MODE STREQUAL "find_package")
    set(prefix "${WORK_DIR}/prefix")
    run(install "${CMAKE_COMMAND}" --install "${WARPKIT_BINARY_DIR}" --prefix "${prefix}"
        --config "${CONFIG}")
    file(GLOB_RECURSE config_files "${prefix}/*/warpkitConfig.cmake")
    if(NOT EXISTS "${prefix}/include/warpkit/warpkit.hpp" OR NOT config_files)
        message(FATAL_ERROR "consumer_find_package: install is missing "
            "include/warpkit/warpkit.hpp or warpkitConfig.cmake under ${prefix}")
    endif()
    run(configure "${CMAKE_COMMAND}" -S "${WARPKIT_SOURCE_DIR}/tests/consumer" -B "${build_dir}"
        ${configure_args} -D "CMAKE_PREFIX_PATH=${prefix}")
    # The package must come from the fresh prefix, not from anywhere else on the system.
    file(STRINGS "${build_dir}/CMakeCache.txt" found_dir REGEX "^warpkit_DIR:")
    string(REGEX REPLACE "^warpkit_DIR:[A-Z]+=" "" found_dir "${found_dir}")
    cmake_path(IS_PREFIX prefix "${found_dir}" NORMALIZE inside)
    if(NOT inside)
        message(FATAL_ERROR "consumer_find_package: warpkit found in '${found_dir}', "
            "not under '${prefix}'")
    endif()
elseif(MODE STREQUAL "add_subdirectory")
    run(configure "${CMAKE_COMMAND}" -S "${WARPKIT_SOURCE_DIR}/tests/consumer/subdir"
        -B "${build_dir}" ${configure_args} -D "WARPKIT_ROOT=${WARPKIT_SOURCE_DIR}")
else()
    message(FATAL_ERROR "run_consumer_test.cmake: unknown MODE '${MODE}'")
endif()

run(build "${CMAKE_COMMAND}" --build "${build_dir}" --config "${CONFIG}")

if(MODE STREQUAL "add_subdirectory")
    # As a subproject warpkit must build nothing of its own.
    file(GLOB_RECURSE built LIST_DIRECTORIES false "${build_dir}/warpkit/bin/*"
        "${build_dir}/warpkit/*warpkit-test-*" "${build_dir}/warpkit/*warpkit-bench-*")
    if(built)
        message(FATAL_ERROR "consumer_add_subdirectory: warpkit built its own targets: ${built}")
    endif()
endif()

find_program(app NAMES app PATHS "${build_dir}" "${build_dir}/${CONFIG}" NO_DEFAULT_PATH
    NO_CACHE)
if(NOT app)
    message(FATAL_ERROR "consumer_${MODE}: built executable 'app' not found in ${build_dir}")
endif()
run(run "${app}")
message(STATUS "consumer_${MODE}: ${last_output}")
