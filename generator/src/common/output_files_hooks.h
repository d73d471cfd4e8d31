// The output writer's hooks for its own tests (tests/output_files_test.cpp): not part of the library's face.
#pragma once

#include <filesystem>
#include <string>

namespace kernelgen {

namespace testing_hooks {
// Replaces the random part of the temporary folder's name with the names `next` returns, in turn, until it
// returns "" (then random names again); nullptr restores random names. Tests use it to plant files and links
// at the names a run will try.
using NameSource = std::string (*)();
void set_temporary_name_source(NameSource next);
// Calls `observer` with the folder and the number of temporaries written so far, after each one (nullptr: none).
// Tests use it to deliver a signal in the middle of a write.
using WriteObserver = void (*)(const std::filesystem::path& temporary_folder, size_t written);
void set_write_observer(WriteObserver observer);
}  // namespace testing_hooks

}  // namespace kernelgen
