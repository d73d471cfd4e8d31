/* A TCG plugin for qemu-system-* (plugin API version 1, qemu 7.2) that counts the guest instructions executed
 * between two marker functions, deterministically: the on-target instruction counts of bench/target_costs.py.
 *
 *   qemu-system-arm ... -plugin build/bench/libqemu_count_plugin.so,start=0xADDR,stop=0xADDR,out=counts.txt
 *
 * Every executed instruction adds one to a counter (an inline add, no call). Each time the guest reaches the
 * first instruction at `start`, the counter is read; at `stop`, the difference is appended to `out`, one
 * decimal number per line, in the order the guest made its calls. The guest brackets each measured call with
 * calls of the two (non-inlined, empty) marker functions; the instructions of one empty bracket, measured
 * the same way, are subtracted by the caller. Addresses are those of the symbols (a Thumb symbol's low bit is
 * ignored).
 *
 * The few declarations of qemu's plugin API used here are written out below: Debian does not ship qemu's
 * plugin header. They follow the API of qemu 7.2 (QEMU_PLUGIN_VERSION 1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
                                                uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

static uint64_t executed;  /* instructions executed so far (one vCPU) */
static uint64_t started;   /* `executed` at the last start marker */
static uint64_t start_address, stop_address;
static FILE *out;

static void on_start(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    (void)userdata;
    started = executed;
}

static void on_stop(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    (void)userdata;
    fprintf(out, "%" PRIu64 "\n", executed - started);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i;
    const size_t count = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < count; ++i) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint64_t address = qemu_plugin_insn_vaddr(insn);
        /* The marker callbacks run before the instruction's own count is added. */
        if (address == start_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
        } else if (address == stop_address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
    }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
    int i;
    const char *path = NULL;
    (void)info;
    for (i = 0; i < argc; ++i) {
        if (strncmp(argv[i], "start=", 6) == 0) {
            start_address = strtoull(argv[i] + 6, NULL, 0) & ~(uint64_t)1;
        } else if (strncmp(argv[i], "stop=", 5) == 0) {
            stop_address = strtoull(argv[i] + 5, NULL, 0) & ~(uint64_t)1;
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            path = argv[i] + 4;
        } else {
            fprintf(stderr, "qemu_count_plugin: unknown argument %s (start=, stop=, out=)\n", argv[i]);
            return 1;
        }
    }
    if (start_address == 0 || stop_address == 0 || path == NULL) {
        fprintf(stderr, "qemu_count_plugin: start=ADDRESS, stop=ADDRESS and out=FILE are required\n");
        return 1;
    }
    out = fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, "qemu_count_plugin: cannot write %s\n", path);
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
