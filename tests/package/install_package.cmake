# cmake -DBINARY_DIR=<kernelgen build> -DPREFIX=<fresh prefix> -P install_package.cmake
#
# Installs the built kernelgen into PREFIX (emptied first) and checks the package holds what the README
# promises: the other package tests use this prefix (the kernelgen_package fixture).
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${PREFIX}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status})")
endif()
foreach(file bin/kernelgen
             lib/cmake/KernelGen/KernelGenConfig.cmake lib/cmake/KernelGen/KernelGenConfigVersion.cmake
             lib/cmake/KernelGen/KernelGenTargets.cmake lib/cmake/KernelGen/KernelGenFunctions.cmake
             share/kernelgen/kernelgen-spec.schema.json share/kernelgen/kernelgen-import-report.schema.json
             share/kernelgen/toolchains/bare-metal-common.cmake share/kernelgen/toolchains/arm-none-eabi-common.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m0.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m0plus.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m3.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m4f.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m7.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m33.cmake
             share/kernelgen/toolchains/arm-none-eabi-cortex-m55.cmake
             share/kernelgen/toolchains/riscv64-unknown-elf-rv32imac.cmake share/kernelgen/toolchains/avr-gcc.cmake
             share/kernelgen/boards/cortex-m/startup.c share/kernelgen/boards/cortex-m/sections.ld
             share/kernelgen/boards/mps2-an386/mps2_an386.ld share/kernelgen/boards/microbit/microbit.ld
             share/kernelgen/boards/mps2-an505/mps2_an505.ld share/kernelgen/boards/mps3-an547/mps3_an547.ld
             share/kernelgen/boards/riscv-virt/riscv_virt.ld share/kernelgen/boards/atmega2560/uart_stdio.c
             share/man/man1/kernelgen.1)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

# The version file: SameMajorVersion, and no 32/64-bit check (a 32-bit firmware build uses a 64-bit host tool).
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${VERSION}")
set(major "${CMAKE_MATCH_1}")
set(minor "${CMAKE_MATCH_2}")
math(EXPR next_major "${major} + 1")
set(project "${PREFIX}-version-check")
file(REMOVE_RECURSE "${project}")
file(WRITE "${project}/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.19)
project(version_check LANGUAGES NONE)
set(CMAKE_SIZEOF_VOID_P 4)
find_package(KernelGen ${major}.${minor} REQUIRED CONFIG PATHS \"${PREFIX}\" NO_DEFAULT_PATH)
if(NOT KernelGen_VERSION STREQUAL \"${VERSION}\" OR NOT TARGET KernelGen::kernelgen
   OR NOT COMMAND kernelgen_add_kernels OR NOT EXISTS \"\${KERNELGEN_SCHEMA_FILE}\")
  message(FATAL_ERROR \"the package lacks its version, target, function or schema\")
endif()
find_package(KernelGen ${next_major}.0 QUIET CONFIG PATHS \"${PREFIX}\" NO_DEFAULT_PATH)
if(KernelGen_FOUND)
  message(FATAL_ERROR \"version ${VERSION} accepted a request for ${next_major}.0\")
endif()
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${project}/build"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "find_package(KernelGen) of the installed package failed:\n${out}${err}")
endif()
