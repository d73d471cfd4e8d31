# cmake -DSOURCE_DIR=<repo> -DPREFIX=<installed kernelgen> -DWORK_DIR=<scratch> -DARM_NM=<arm-none-eabi-nm>
#       [-DARM_GCC=<arm-none-eabi-gcc> -DARM_SIZE=<arm-none-eabi-size> -DQEMU=<qemu-system-arm>] -P cross_example.cmake
#
# examples/firmware cross-built for Cortex-M4F with the installed toolchain file, the generator coming from
# the host: (1) find_package(KernelGen) through KernelGen_DIR, with the toolchain's
# CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY re-rooting every other search into an empty sysroot; (2)
# add_subdirectory() of this checkout with KERNELGEN_EXECUTABLE. Either way no host package is looked for,
# no generator is compiled, every compile command holds only the toolchain's, the project's and the
# function's flags, and the program is an ARM ELF holding both kernels. With no build type chosen (as here), the
# kernels and the support code are compiled with -Os, and each kernel's object has exactly the .text of the same
# source compiled by hand with the toolchain's CPU flags and -Os. (3) With qemu-system-arm, the program
# linked for the mps2-an386 board (the installed boards/cortex-m start-up code and boards/mps2-an386 linker
# script, with semihosting) runs its checks there.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
kg_copy_example("${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/empty-sysroot")
set(toolchain "${PREFIX}/share/kernelgen/toolchains/arm-none-eabi-cortex-m4f.cmake")
set(common_args -G Ninja "-DCMAKE_TOOLCHAIN_FILE=${toolchain}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
                "-DCMAKE_FIND_ROOT_PATH=${WORK_DIR}/empty-sysroot")

# Every flag a compile command may hold: the toolchain file's CPU flags, examples/firmware's warnings,
# kernelgen_add_kernels()'s C99 and, without a build type, -Os, and the include folder of the generated headers.
set(allowed_flags -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Wall -Wextra -Wpedantic -Wconversion
                  -Wsign-conversion -Werror -std=c99 -Os -o -c)
include("${toolchain}")  # KERNELGEN_TARGET_CPU_FLAGS

# The .text bytes of an object (arm-none-eabi-size -A).
function(text_bytes out object)
  kg_run(sizes "${ARM_SIZE}" -A "${object}")
  if(NOT sizes MATCHES "\n\.text +([0-9]+)")
    message(FATAL_ERROR "no .text in ${object}:\n${sizes}")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

function(check_cross_build case build)
  file(READ "${build}/CMakeCache.txt" cache)
  kg_expect("${cache}" NOT_MATCHES "nlohmann_json|GTest|KAINJOW|[Mm]ustache|Protobuf|ONNX"
            "${case}: the cross configure looked for a host-only package")
  file(READ "${build}/compile_commands.json" commands_json)
  string(JSON count LENGTH "${commands_json}")
  if(NOT count EQUAL 4)
    message(FATAL_ERROR "${case}: expected 4 compile commands (two kernels, kernelgen_support.c, main.c), got "
                        "${count}:\n${commands_json}")
  endif()
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON command GET "${commands_json}" ${i} command)
    string(JSON file GET "${commands_json}" ${i} file)
    kg_expect("${file}" MATCHES "\\.c$" "${case}: only C is compiled (no generator)")
    separate_arguments(words UNIX_COMMAND "${command}")
    list(POP_FRONT words compiler)
    kg_expect("${compiler}" MATCHES "arm-none-eabi-gcc$" "${case}: ${file} is compiled by the cross compiler")
    foreach(word IN LISTS words)
      if(word MATCHES "^-I(.*)$")
        kg_expect("${CMAKE_MATCH_1}" MATCHES "^${build}/" "${case}: only the build's own include folders")
      elseif(word MATCHES "^-" AND NOT word IN_LIST allowed_flags)
        message(FATAL_ERROR "${case}: flag ${word} leaked into: ${command}")
      endif()
    endforeach()
    kg_expect("${command}" MATCHES "-mcpu=cortex-m4 .*-mfpu=fpv4-sp-d16" "${case}: the toolchain's CPU flags")
    if(file MATCHES "/main\\.c$")
      kg_expect("${command}" NOT_MATCHES " -Os " "${case}: the project's own main.c keeps the project's flags")
      continue()
    endif()
    kg_expect("${command}" MATCHES " -Os " "${case}: ${file} (no build type) is compiled for size")
    if(ARM_GCC AND ARM_SIZE)
      string(JSON directory GET "${commands_json}" ${i} directory)
      list(FIND words -o at)
      math(EXPR at "${at} + 1")
      list(GET words ${at} object)
      get_filename_component(object "${object}" ABSOLUTE BASE_DIR "${directory}")
      get_filename_component(name "${file}" NAME_WE)
      set(by_hand "${build}/by-hand-${name}.o")
      kg_run(log "${ARM_GCC}" ${KERNELGEN_TARGET_CPU_FLAGS} -std=c99 -Os "-I${build}/model_kernels_kernels"
                 "-I${build}/kernelgen_support" -c "${file}" -o "${by_hand}")
      text_bytes(built "${object}")
      text_bytes(expected "${by_hand}")
      if(NOT built EQUAL expected)
        message(FATAL_ERROR "${case}: ${file} holds ${built} bytes of .text in the build, ${expected} at -Os")
      endif()
      message(STATUS "${case}: ${name}: ${built} bytes of .text, as at -Os")
    endif()
  endforeach()
  file(READ "${build}/firmware" header OFFSET 0 LIMIT 20 HEX)
  # ELF magic, 32-bit (EI_CLASS 1), little-endian; e_machine (offset 18) 0x28: ARM.
  kg_expect("${header}" MATCHES "^7f454c460101" "${case}: firmware is a 32-bit little-endian ELF")
  string(SUBSTRING "${header}" 36 4 machine)
  if(NOT machine STREQUAL "2800")
    message(FATAL_ERROR "${case}: firmware is not an ARM ELF (e_machine ${machine})")
  endif()
  kg_run(symbols "${ARM_NM}" "${build}/firmware")
  kg_expect("${symbols}" MATCHES " T embed_tokens\n" "${case}: the firmware holds the kernel")
  kg_expect("${symbols}" MATCHES " T kv_cache_write\n" "${case}: the firmware holds the kernel")
endfunction()

set(build "${WORK_DIR}/build-find-package")
kg_run(log "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${build}" ${common_args}
           "-DKernelGen_DIR=${PREFIX}/lib/cmake/KernelGen")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "kernelgen: specs/embed_tokens.json" "find_package: the host generator ran")
check_cross_build(find_package "${build}")
kg_expect_no_work("${build}" "find_package: after the first build")

set(build "${WORK_DIR}/build-subdirectory")
kg_run(log "${CMAKE_COMMAND}" -S "${WORK_DIR}/src" -B "${build}" ${common_args}
           "-DKERNELGEN_SOURCE_DIR=${SOURCE_DIR}" "-DKERNELGEN_EXECUTABLE=${PREFIX}/bin/kernelgen")
kg_expect("${log}" MATCHES "kernelgen: cross-compiling, so the generator is not built here" "add_subdirectory")
kg_build(log "${build}")
kg_expect("${log}" MATCHES "kernelgen: specs/kv_cache_write.json" "add_subdirectory: the host generator ran")
check_cross_build(add_subdirectory "${build}")
kg_expect_no_work("${build}" "add_subdirectory: after the first build")

if(QEMU AND ARM_GCC)
  set(build "${WORK_DIR}/build-qemu")
  set(cpu ${KERNELGEN_TARGET_CPU_FLAGS})
  file(MAKE_DIRECTORY "${build}")
  set(boards "${PREFIX}/share/kernelgen/boards")
  kg_run(log "${ARM_GCC}" ${cpu} -std=c99 -O1 -c "${boards}/cortex-m/startup.c" -o "${build}/startup.o")
  # The board's link options, a list, through an initial cache file; semihosting instead of nosys.
  file(WRITE "${build}/board.cmake" "set(FIRMWARE_BOARD_LINK_OPTIONS \"${build}/startup.o;"
       "-nostartfiles;-L${boards}/cortex-m;-T${boards}/mps2-an386/mps2_an386.ld\" CACHE STRING \"\")\n")
  kg_run(log "${CMAKE_COMMAND}" -C "${build}/board.cmake" -S "${WORK_DIR}/src" -B "${build}" ${common_args}
             "-DKernelGen_DIR=${PREFIX}/lib/cmake/KernelGen" "-DKERNELGEN_LINK_SPECS=--specs=rdimon.specs")
  kg_build(log "${build}")
  execute_process(COMMAND "${QEMU}" -M mps2-an386 -cpu cortex-m4 -nographic -monitor none
                          -semihosting-config enable=on,target=native -kernel "${build}/firmware"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the firmware failed check ${status} on the emulated Cortex-M4F\n${out}${err}")
  endif()
  message(STATUS "the firmware's checks passed on qemu mps2-an386 (Cortex-M4F)")
else()
  message(STATUS "qemu-system-arm not given: the firmware is cross-built but not run")
endif()
