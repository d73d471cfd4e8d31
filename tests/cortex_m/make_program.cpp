// Writes the program the Cortex-M test runs on emulated hardware: every case the host tests exported (the
// ONNX doc examples, ONNX's node tests, a random sample; see cprogram::export_case), the kernels those cases
// call, generated from their specs, and the self-checking driver of tests/c_program.cpp around them.
//
//   cortex_m_make_program --out DIR --specs SPEC.json... --cases CASES.json...
//
// A case names its kernel; the kernel's spec comes from the spec files, or from the case itself ("spec",
// as the random test dumps it). Only kernels some case calls are generated.
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "c_program.h"
#include "kernelgen/generate.h"

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "cortex_m_make_program: %s\n", message.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string out;
    std::vector<std::string> spec_files, case_files;
    std::vector<std::string>* list = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc) out = argv[++i];
        else if (arg == "--specs") list = &spec_files;
        else if (arg == "--cases") list = &case_files;
        else if (list) list->push_back(arg);
        else return fail("unexpected argument " + arg);
    }
    if (out.empty() || case_files.empty()) return fail("usage: --out DIR --specs SPEC.json... --cases CASES.json...");

    std::map<std::string, kernelgen::KernelSpec> specs;
    std::vector<kernelgen::Diagnostic> diagnostics;
    for (const auto& file : spec_files) {
        for (auto& spec : kernelgen::parse_spec_file(file, diagnostics)) specs[spec.name] = spec;
    }
    std::vector<cprogram::Case> cases;
    for (const auto& file : case_files) {
        std::ifstream in(file);
        if (!in) return fail("cannot read " + file);
        const nlohmann::json items = nlohmann::json::parse(in);
        for (const auto& item : items) {
            cases.push_back(cprogram::case_from_json(item));
            if (item.contains("spec")) {
                for (auto& spec : kernelgen::parse_spec_text(item["spec"].dump(), file, diagnostics)) specs[spec.name] = spec;
            }
        }
    }
    if (!diagnostics.empty()) return fail(diagnostics.front().str());

    std::vector<kernelgen::KernelSpec> kernels;
    std::set<std::string> wanted;
    for (const auto& c : cases) {
        if (!wanted.insert(c.kernel).second) continue;
        auto it = specs.find(c.kernel);
        if (it == specs.end()) return fail("no spec for kernel " + c.kernel);
        kernels.push_back(it->second);
    }
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    if (!result.diagnostics.empty()) return fail(result.diagnostics.front().str());
    result.files.push_back({"driver.c", cprogram::program(cases)});
    const auto report = kernelgen::write_outputs(out, result.files);
    if (!report.error.empty()) return fail(report.error);
    std::printf("cortex_m_make_program: %zu cases over %zu kernels in %s\n", cases.size(), kernels.size(), out.c_str());
    return 0;
}
