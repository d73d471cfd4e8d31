// One call of each case three ways (cases.h), each between callgrind client requests, so that
// `valgrind --tool=callgrind --collect-atstart=no` counts the x86 instructions of exactly that call and dumps
// them under the name "<case>/<way>" (bench/count_instructions.py runs it and reads the dumps). Every way is
// called once before it is counted, so first-touch page faults and lazy binding are not in the count. Run
// without valgrind, it only checks that kernelgen and the runtime-shaped kernel agree (exit status 1 if not).
#include <valgrind/callgrind.h>

#include <string>

#include "cases.h"

int main() {
    const std::vector<bench::Case> cases = bench::make_cases();
    if (!bench::all_agree(cases)) return 1;
    for (const bench::Case& c : cases) {
        const std::pair<const char*, const std::function<void()>*> ways[] = {
            {"kernelgen", &c.kernelgen}, {"runtime_shaped", &c.runtime_shaped}, {"memcpy", &c.memcpy}};
        for (const auto& [way, call] : ways) {
            (*call)();
            const std::string label = c.name + "/" + way;
            CALLGRIND_ZERO_STATS;
            CALLGRIND_TOGGLE_COLLECT;
            (*call)();
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT(label.c_str());
        }
    }
    return 0;
}
