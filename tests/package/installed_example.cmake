# cmake -DSOURCE_DIR=<repo> -DPREFIX=<installed kernelgen> -DWORK_DIR=<scratch> -P installed_example.cmake
#
# examples/firmware against the installed package (find_package(KernelGen) through CMAKE_PREFIX_PATH): it
# builds and runs; a second build does nothing; a spec edit regenerates that spec's kernel only; a newer
# generator regenerates every kernel, and recompiles none whose code it leaves as it was; a kernel renamed in its
# spec leaves no stale header behind, so code still calling the old name stops at its #include.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
kg_copy_example("${WORK_DIR}")
# A copy of the install of its own, whose generator this test may touch while other tests use the fixture's.
file(COPY "${PREFIX}/" DESTINATION "${WORK_DIR}/prefix")
set(PREFIX "${WORK_DIR}/prefix")
set(src "${WORK_DIR}/src")
set(build "${WORK_DIR}/build")
kg_run(log "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_PREFIX_PATH=${PREFIX}")
kg_expect("${log}" NOT_MATCHES "KernelGen_DIR-NOTFOUND" "configure")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "first build")
kg_expect("${log}" MATCHES "kernelgen: specs/kv_cache_write.json" "first build")
kg_run_firmware("${build}/firmware")
kg_expect_no_work("${build}" "after the first build")

# A spec edit that changes the generated code but not what it computes: only that kernel is regenerated.
set(kernel "${build}/model_kernels_kernels/embed_tokens.c")
file(READ "${kernel}" before)
file(READ "${src}/specs/embed_tokens.json" spec)
string(REPLACE "\"axis\": 0" "\"axis\": 0, \"unroll\": \"none\"" edited "${spec}")
if(edited STREQUAL spec)
  message(FATAL_ERROR "the test's spec edit no longer applies to examples/firmware/specs/embed_tokens.json")
endif()
file(WRITE "${src}/specs/embed_tokens.json" "${edited}")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "after the spec edit")
kg_expect("${log}" NOT_MATCHES "kernelgen: specs/kv_cache_write.json" "after editing the other spec")
file(READ "${kernel}" after)
if(after STREQUAL before)
  message(FATAL_ERROR "embed_tokens.c is unchanged after its spec asked for \"unroll\": \"none\"")
endif()
kg_run_firmware("${build}/firmware")
kg_expect_no_work("${build}" "after the spec edit")

# A newer generator (the installed program's timestamp) regenerates every kernel; the kernels come out as
# they were, so Ninja recompiles nothing.
file(TOUCH "${PREFIX}/bin/kernelgen")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "after a generator update")
kg_expect("${log}" MATCHES "kernelgen: specs/kv_cache_write.json" "after a generator update")
kg_expect("${log}" NOT_MATCHES "Building C object" "after a generator update that changes no kernel")
kg_run_firmware("${build}/firmware")
kg_expect_no_work("${build}" "after the generator update")

# A kernel renamed in its spec: the configure the edit triggers removes the old kernel's files, so the firmware,
# which still includes embed_tokens.h, stops at compiling (not at linking, as it would with the stale header).
string(REPLACE "\"name\": \"embed_tokens\"" "\"name\": \"embed_tokens_v2\"" renamed "${edited}")
if(renamed STREQUAL edited)
  message(FATAL_ERROR "the test's rename no longer applies to examples/firmware/specs/embed_tokens.json")
endif()
file(WRITE "${src}/specs/embed_tokens.json" "${renamed}")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" RESULT_VARIABLE status OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(status EQUAL 0)
  message(FATAL_ERROR "the firmware built against a renamed kernel:\n${log}")
endif()
kg_expect("${log}" MATCHES "embed_tokens[.]h: No such file" "after renaming a kernel")
foreach(stale embed_tokens.h embed_tokens.c)
  if(EXISTS "${build}/model_kernels_kernels/${stale}")
    message(FATAL_ERROR "${stale} is left in the output folder after its kernel was renamed")
  endif()
endforeach()
if(NOT EXISTS "${build}/model_kernels_kernels/embed_tokens_v2.h")
  message(FATAL_ERROR "embed_tokens_v2.h was not written")
endif()
# Renamed back: the firmware builds and runs again, and embed_tokens_v2's files go.
file(WRITE "${src}/specs/embed_tokens.json" "${edited}")
kg_build(log "${build}")
kg_run_firmware("${build}/firmware")
if(EXISTS "${build}/model_kernels_kernels/embed_tokens_v2.h")
  message(FATAL_ERROR "embed_tokens_v2.h is left in the output folder after its kernel was renamed back")
endif()
kg_expect_no_work("${build}" "after renaming a kernel back")
