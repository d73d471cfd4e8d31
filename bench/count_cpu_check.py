#!/usr/bin/env python3
"""The instruction counts of docs/speed-and-size.md do not depend on the CPU that builds and runs them.

Builds the counted benchmark (bench/counted/, a project of its own here) twice more, each time as a machine of
another CPU would if its flags reached the build: with CFLAGS and CXXFLAGS of `-march=A`, then of `-march=B`
(by default an AMD EPYC's and an Intel Xeon's -march=native). The second is counted with glibc shown a CPU
without AVX, AVX2, ERMS or SSE4 and with small caches besides (as an older or a virtual machine's CPU would be),
through glibc's tunables, before the pin of unroll_report.valgrind_env. Both must count
exactly what the build's own count_calls counts, the program instruction_counts_are_current holds the page to.

Usage: bench/count_cpu_check.py --count-calls build/bench/count_calls --kernelgen build/kernelgen --work DIR
                                [--cmake CMAKE] [--cc CC --cxx CXX] [--march A --march B]
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import count_instructions  # noqa: E402

# What glibc sees of a CPU without AVX, AVX2, ERMS and SSE4, and with small caches (an older or a virtual machine's).
OTHER_CPU = ["glibc.cpu.hwcaps=-AVX2,-AVX,-AVX_Fast_Unaligned_Load,-ERMS,-FSRM,-FMA,-BMI1,-BMI2,-POPCNT,-SSE4_1,"
             "-SSE4_2",
             "glibc.cpu.x86_non_temporal_threshold=0x40000", "glibc.cpu.x86_shared_cache_size=0x40000",
             "glibc.cpu.x86_data_cache_size=0x4000"]


def build(source, work, march, args):
    """count_calls of bench/counted/ built in `work` with `march` in the compilers' flags."""
    shutil.rmtree(work, ignore_errors=True)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = [args.cmake, "-S", source, "-B", work, *generator, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 f"-DKERNELGEN_EXECUTABLE={os.path.abspath(args.kernelgen)}",
                 f"-DCMAKE_C_FLAGS={march}", f"-DCMAKE_CXX_FLAGS={march}"]
    if args.cc:
        configure.append(f"-DCMAKE_C_COMPILER={args.cc}")
    if args.cxx:
        configure.append(f"-DCMAKE_CXX_COMPILER={args.cxx}")
    for command in (configure, [args.cmake, "--build", work, "--target", "count_calls", "--parallel", "2"]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    with open(os.path.join(work, "CMakeCache.txt")) as f:
        if f"CMAKE_C_FLAGS:STRING={march}\n" not in f.read():
            sys.exit(f"{work}: the build did not take CFLAGS {march}")
    return os.path.join(work, "count_calls")


def differences(expected, counts):
    def shown(value):
        return "none" if value is None else f"{value:,}"
    return [f"  {case}/{way}: {shown(expected[case][way])} by the build's, {shown(counts.get(case, {}).get(way))} here"
            for case in sorted(expected) for way in count_instructions.WAYS
            if counts.get(case, {}).get(way) != expected[case].get(way)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count-calls", required=True, help="the build's count_calls (build/bench/count_calls)")
    parser.add_argument("--kernelgen", required=True)
    parser.add_argument("--work", required=True, help="a scratch folder for the two builds")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cc")
    parser.add_argument("--cxx")
    parser.add_argument("--march", action="append", help="a CPU's flags, twice (default: znver2, icelake-server)")
    args = parser.parse_args()
    marches = args.march or ["-march=znver2", "-march=icelake-server -mno-avx512f"]
    if len(marches) != 2:
        sys.exit("--march: give two")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "counted")
    expected = count_instructions.count(args.count_calls)
    failed = False
    for index, march in enumerate(marches):
        program = build(source, os.path.join(args.work, f"cpu{index + 1}"), march, args)
        other_cpu = OTHER_CPU if index == 1 else []
        counts = count_instructions.count(program, other_cpu)
        seen = f"built with {march}" + (", run with glibc shown another CPU (" + ":".join(other_cpu) + ")"
                                        if other_cpu else "")
        wrong = differences(expected, counts)
        if wrong:
            failed = True
            print(f"{seen}: {len(wrong)} counts differ from the build's count_calls:\n" + "\n".join(wrong))
        else:
            print(f"{seen}: the same {sum(len(w) for w in expected.values())} counts as the build's count_calls")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
