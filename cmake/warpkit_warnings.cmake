# Build settings for warpkit's own tests, examples and benchmarks.
#
# Never applied to the warpkit INTERFACE target: consumers choose their own flags.
# Third-party headers come in through imported targets, whose include directories CMake
# passes as SYSTEM (-isystem), so their warnings stay quiet.
include_guard(GLOBAL)

set(WARPKIT_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wconversion -Wshadow)
set(WARPKIT_SANITIZER_FLAGS
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

# warpkit_target_defaults(<target>)
#   Adds the project warnings (-Werror with WARPKIT_WERROR), the sanitizers (with
#   WARPKIT_SANITIZE) and, for executables, the output directory <warpkit build>/bin.
function(warpkit_target_defaults target)
    if(MSVC)
        target_compile_options(${target} PRIVATE /W4 /permissive- $<$<BOOL:${WARPKIT_WERROR}>:/WX>)
    else()
        target_compile_options(${target} PRIVATE
            ${WARPKIT_WARNING_FLAGS} $<$<BOOL:${WARPKIT_WERROR}>:-Werror>)
        if(WARPKIT_SANITIZE)
            target_compile_options(${target} PRIVATE ${WARPKIT_SANITIZER_FLAGS})
            target_link_options(${target} PRIVATE -fsanitize=address,undefined)
        endif()
    endif()

    # Standard C++20, no GNU extensions, for warpkit's own code.
    set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)

    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
        set_target_properties(${target} PROPERTIES
            RUNTIME_OUTPUT_DIRECTORY "${warpkit_BINARY_DIR}/bin")
    endif()
endfunction()

# warpkit_subdirs_with_sources(<out-var> <dir> [EXCLUDE names...])
#   Names of the immediate subdirectories of <dir> that hold at least one *.cpp.
function(warpkit_subdirs_with_sources out dir)
    cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "EXCLUDE")
    file(GLOB children LIST_DIRECTORIES true RELATIVE "${dir}" CONFIGURE_DEPENDS "${dir}/*")
    list(SORT children)
    set(result "")
    foreach(child IN LISTS children)
        if(NOT IS_DIRECTORY "${dir}/${child}" OR child IN_LIST arg_EXCLUDE)
            continue()
        endif()
        file(GLOB sources CONFIGURE_DEPENDS "${dir}/${child}/*.cpp")
        if(sources)
            list(APPEND result "${child}")
        endif()
    endforeach()
    set(${out} "${result}" PARENT_SCOPE)
endfunction()
