// Writing a run's files into its output folder, safely in a folder others share or an attacker prepared.
//
// Every file of a run is first examined with lstat() (never read through a link, never opened when it is not a
// regular file: a FIFO, a device or a link to one is refused before anything is written), compared by size and
// then by content, and left alone, timestamp too, when its content is unchanged. The changed ones are written
// into one private temporary folder `DIR/.kernelgen-XXXXXXXXXXXX` (created exclusively with an unpredictable
// name, files inside created with O_EXCL|O_NOFOLLOW), flushed to disk, and renamed into place only once all of
// them are written; the temporary folder is then removed. On every error path, and on SIGINT, SIGTERM, SIGHUP
// or SIGQUIT during the write, the temporaries are removed; only a SIGKILL (or a power cut) can leave the
// temporary folder behind, and no run ever deletes a folder it did not create. Runs into one folder take turns:
// each holds an exclusive lock (flock) on the folder while it examines and writes, so the files of two concurrent
// runs never interleave.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kernelgen {

struct OutputFile {
    std::string name;  // file name inside the output folder (no '/', not "." or "..")
    std::string content;
};

struct WriteReport {
    std::vector<std::string> written;    // created or changed
    std::vector<std::string> unchanged;  // same content already there: left alone, timestamps too
    std::string error;                   // non-empty when writing failed (it says what was replaced)
};

// The name pattern of a run's temporary folder inside the output folder (the X's are random).
constexpr const char* kTemporaryFolderPattern = ".kernelgen-XXXXXXXXXXXX";

// Writes `files` into `dir` as described above, creating `dir` (and its parents) when missing. A symbolic link
// at a target's name is replaced by the new file when it points to a regular file or nowhere (its target is
// never written); any other link, or a target that is not a regular file, is an error before anything is
// written.
//
// `inputs` are the files the run read (its spec or model, the data files): a target that is one of them (the
// same directory entry, or the same file by device and inode, through a link or a second name) is refused before
// anything is written, naming both, so that no run replaces its own input.
WriteReport write_outputs(const std::filesystem::path& dir, const std::vector<OutputFile>& files,
                          const std::vector<std::filesystem::path>& inputs = {});

}  // namespace kernelgen
