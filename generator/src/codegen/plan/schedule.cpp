#include "codegen/plan/schedule.h"

#include <algorithm>

#include "codegen/plan/weights.h"

namespace kernelgen {
namespace schedule {
namespace {

// How one loop level runs: a loop, a loop unrolled by `factor` (then a remainder written out), or written out.
struct LevelPlan {
    enum class Mode { Loop, Partial, Full } mode = Mode::Loop;
    uint64_t factor = 1;
};

// What one loop level contributes at the current point: its variable plus a constant, or a constant alone
// (where the level is written out).
struct Position {
    std::string variable;
    uint64_t offset = 0;
};

// The views the copies read and write through at the current point, and the loop levels whose variables
// the open slices already hold.
struct Place {
    View source, indices{Tensor::Indices}, output{Tensor::Output};
    size_t sliced_levels = 0;
};

class Planner {
public:
    explicit Planner(Lowered lowered) : lowered_(std::move(lowered)), copy_(lowered_.copy) {
        reduce_ = copy_.reduction != Reduction::None;
        source_ = copy_.indexed == IndexedCopy::Indexed::Source ? Tensor::Data : Tensor::Updates;
        const uint64_t largest = std::max({copy_.data_size, copy_.indices_size, copy_.updates_size, copy_.output_size});
        decided_.wide_offsets = largest > UINT32_MAX;
        plan_levels();
        plan_slices();
        plan_prefetch();
        decided_.checks_straight = checks_straight();
    }

    // The finished plan: written once, from the decisions above and the body they shaped.
    Schedule run() {
        plan_helpers();
        plan_body();
        // The header's contract; where every copy is written out element by element, and there are few, a gather's
        // also states the values it writes (kValuesStatedCopies). Else long written-out copies go to helpers.
        const std::optional<uint64_t> elements = element_copies(body_);
        const bool values_stated = decided_.straight && elements && *elements <= kValuesStatedCopies;
        if (!values_stated) plan_copy_helpers();
        Schedule out;
        out.element = lowered_.element;
        out.index_type = lowered_.index_type;
        out.wide_offsets = decided_.wide_offsets;
        out.uses_memcpy = uses_memcpy_;
        out.row_copies = lowered_.unroll.kind != Unroll::Kind::None;
        out.data_table = lowered_.data_table;
        out.updates_table = lowered_.updates_table;
        out.helpers = std::move(helpers_);
        out.body = std::move(body_);
        out.straight = decided_.straight;
        out.checks_straight = decided_.checks_straight;
        out.runs_straight = decided_.runs_straight;
        out.restates_checks = restates_checks();
        out.prefetch_distance = decided_.prefetch_distance;
        out.size_guard_bytes = size_guard_bytes();
        out.note = note();
        lowered_.face.contract.text["acsl"] = acsl_contract(lowered_, values_stated);
        out.face = std::move(lowered_.face);
        out.data_file = std::move(lowered_.data_file);
        return out;
    }

private:
    // The element copies (Assign) of a body with no loop and no block copy (memcpy), or none for another.
    static std::optional<uint64_t> element_copies(const Statements& body) {
        uint64_t copies = 0;
        for (const Statement& statement : body) {
            const Statements* inner = nullptr;
            if (std::holds_alternative<For>(statement.node) || std::holds_alternative<BlockCopy>(statement.node) ||
                std::holds_alternative<RowCall>(statement.node)) {
                return std::nullopt;
            }
            if (std::holds_alternative<Assign>(statement.node)) ++copies;
            if (const auto* block = std::get_if<Block>(&statement.node)) inner = &block->body;
            if (const auto* local = std::get_if<Local>(&statement.node)) inner = &local->body;
            if (!inner) continue;
            const std::optional<uint64_t> more = element_copies(*inner);
            if (!more) return std::nullopt;
            copies += *more;
        }
        return copies;
    }

    // Whether statements hold a loop, at any depth.
    static bool has_loop(Statements::const_iterator begin, Statements::const_iterator end) {
        return std::any_of(begin, end, [](const Statement& statement) {
            if (std::holds_alternative<For>(statement.node)) return true;
            const Statements* inner = nullptr;
            if (const auto* block = std::get_if<Block>(&statement.node)) inner = &block->body;
            if (const auto* local = std::get_if<Local>(&statement.node)) inner = &local->body;
            return inner && has_loop(inner->begin(), inner->end());
        });
    }

    // Run-time extents: the parameter or local a loop's stride is also multiplied by ("" for a literal stride).
    static const std::string& factor_of(const kernelgen::Loop& loop, uint64_t kernelgen::Loop::*stride) {
        static const std::string none;
        if (stride == &kernelgen::Loop::source_stride) return loop.source_factor;
        if (stride == &kernelgen::Loop::destination_stride) return loop.destination_factor;
        return none;
    }
    // The factor of the block's elements, "" for a literal block.
    const std::string& block_factor() const {
        static const std::string none;
        return copy_.runtime_extents ? copy_.runtime_extents->block_factor : none;
    }

    // --- decisions -------------------------------------------------------------------------------------

    // "auto"'s statements of one point's copies inside a loop body: written out, or a loop over the table of runs.
    uint64_t loop_cost() const {
        if (copy_.runs && !decided_.runs_straight) return 1;
        return auto_statements_per_point(copy_, element_bytes());
    }

    bool any_check() const {
        if (copy_.tuple_count == 0 || !lowered_.checked) return false;
        return std::any_of(copy_.components.begin(), copy_.components.end(), [&](const IndexComponent& component) {
            return component.bound == 0 || needs_check(component, lowered_.index_type);
        });
    }

    // Where the loop of checks gathers them into one flag (an unroll factor's) or runs up to a run-time count, or
    // any check is against a size passed at run time, a non-relational analysis (Frama-C's EVA) cannot carry what
    // the checks learned about each value to the copies after them, which read the values again: the copies then
    // restate each value's range as an ACSL assertion, which WP proves from the checks and EVA takes as a
    // hypothesis (tests/proof/). Not ORed offsets: their power-of-two sizes wrap any value inside the axis.
    bool restates_checks() const {
        if (!any_check() || always_out_of_range()) return false;
        const bool sized = std::any_of(copy_.components.begin(), copy_.components.end(),
                                       [](const IndexComponent& component) { return !component.bound_parameter.empty(); });
        return sized || (!decided_.checks_straight && (plan_checks().accumulate || copy_.counts_index_rows()));
    }

    // Whether an axis of size 0 makes every index tuple fail its check (and there are tuples).
    bool always_out_of_range() const {
        return any_check() && std::any_of(copy_.components.begin(), copy_.components.end(), [](const IndexComponent& component) {
                   return component.bound == 0 && component.kind == IndexComponent::Kind::Wrapped;
               });
    }

    // "auto"'s weight of n statements of copies (see kReductionWeight). A copy wrapped by a size passed at run time
    // weighs as much as a combine: the wrap's power-of-two test, which folds away for a literal size, then runs at
    // every copy, and written out it cost more instructions than a loop on Cortex-M0.
    // A row function's call: from one loop, the compiler inlines it; written out, its calls stay calls, measured
    // slower than the loop on Cortex-M0 and M4F. Such a copy outweighs the budget, so "auto" keeps the loop.
    uint64_t weighed(uint64_t statements) const {
        if (lowered_.row_function || !block_factor().empty()) return statements * (kUnrollBudget + 1);
        return reduce_ || copy_.runtime_bounded() ? statements * kReductionWeight : statements;
    }

    void plan_levels() {
        const size_t depth = copy_.loops.size();
        levels_.assign(depth, LevelPlan{});
        const Unroll& unroll = lowered_.unroll;
        // A run-time count's loop stays a loop in every mode; unrolling applies to the levels inside it.
        const bool counted = copy_.count_bound != 0;
        const uint64_t most_bodies = unroll.kind == Unroll::Kind::Auto ? auto_most_bodies() : UINT64_MAX;
        if (unroll.kind == Unroll::Kind::Full ||
            (unroll.kind == Unroll::Kind::Auto && !counted && copy_.point_count() <= most_bodies &&
             weighed(copy_.point_count() * auto_statements_per_point(copy_, element_bytes())) <= kUnrollBudget)) {
            for (size_t level = 0; level < depth; ++level) {
                levels_[level].mode = copy_.loops[level].runtime_scale ? LevelPlan::Mode::Loop : LevelPlan::Mode::Full;
            }
            decided_.straight = !counted;
            decided_.runs_straight = true;
            return;
        }
        // Constant runs are written out when there is one, or (auto) while they fit a loop body; otherwise
        // a loop walks a table of them.
        decided_.runs_straight = copy_.runs && (copy_.runs->size() <= 1 || (unroll.kind == Unroll::Kind::Auto &&
                                                                         weighed(auto_statements_per_point(copy_, element_bytes())) <= kUnrollBudget));
        if (depth == 0 || unroll.kind == Unroll::Kind::None) return;
        if (unroll.kind == Unroll::Kind::Factor) {
            if (copy_.loops[depth - 1].runtime_scale == 0) set_partial(depth - 1, unroll.factor, UINT64_MAX);
            return;
        }
        // auto: unroll inner levels whole while the loop body stays within budget (and the bodies written out
        // within the flash limit), then the next one in part.
        uint64_t per_iteration = weighed(loop_cost());
        uint64_t bodies = 1;
        for (size_t level = depth; level-- > 0;) {
            const uint64_t extent = copy_.loops[level].extent;
            if (copy_.loops[level].runtime_scale) break;
            if (per_iteration * extent <= kUnrollBudget && bodies * extent <= most_bodies) {
                levels_[level].mode = LevelPlan::Mode::Full;
                per_iteration *= extent;
                bodies *= extent;
                continue;
            }
            // Prefer a factor that divides the extent (no remainder), if one is at least half the budget.
            const uint64_t most = std::min(kUnrollBudget / per_iteration, most_bodies / bodies);
            uint64_t factor = most;
            for (uint64_t f = most; f * 2 >= most && f >= 2; --f) {
                if (extent % f == 0) {
                    factor = f;
                    break;
                }
            }
            set_partial(level, factor, most_bodies / bodies);
            break;
        }
    }

    // Unrolls a level by `factor`, its code at most `most` copies of the loop body (the remainder written out
    // after the loop counts too).
    void set_partial(size_t level, uint64_t factor, uint64_t most) {
        const uint64_t extent = copy_.loops[level].extent;
        // A loop that would run once is written out instead, where that fits; else it runs at least twice.
        if (factor * 2 > extent) {
            if (extent <= most) {
                levels_[level].mode = LevelPlan::Mode::Full;
                return;
            }
            factor = extent / 2;
        }
        while (factor >= 2 && factor + extent % factor > most) --factor;
        if (factor >= 2) levels_[level] = LevelPlan{LevelPlan::Mode::Partial, factor};
    }

    // The flash limit's most bodies written out (kFlashRatio).
    uint64_t auto_most_bodies() const {
        return most_bodies_in_flash(lowered_, element_bytes(), checks_straight(), checks_straight(Unroll::Kind::None));
    }

    // The loop that encloses the innermost one names, at each of its points, the part of each tensor its inner
    // loop reaches (a pointer per tensor). The inner loop's offsets then leave out the outer loop variables:
    // with 32-bit offsets on a 64-bit machine, a compiler cannot fold `i0 * 1024u + index` into an address (the
    // sum might wrap), and computes it again for every element.
    void plan_slices() {
        std::optional<size_t> innermost;
        for (size_t level = 0; level < levels_.size(); ++level) {
            if (levels_[level].mode == LevelPlan::Mode::Full) continue;
            slice_level_ = innermost;
            innermost = level;
        }
        // Where no loop encloses it, the innermost loop opens them in its own body when that body writes out the
        // levels inside it and reads index values that move with it (GatherElements and ScatterElements rows):
        // gcc then computes each row's address once a turn, not once an element (spectrum_bins, 20 complex64
        // elements: 305 -> 285 instructions on Cortex-M4F, 390 -> 356 on Cortex-M0). Not where the index values
        // stay (a Gather along the last axis): there gcc keeps the wrapped values across turns, and a slice cost
        // class_logits_last_axis 183 -> 225 instructions on Cortex-M4F.
        if (!slice_level_ && innermost && *innermost + 1 < levels_.size() && copy_.loops[*innermost].indices_stride != 0) {
            slice_level_ = innermost;
        }
    }

    // Bytes of one element; a string's pointer counts as 4 bytes, the least on any target.
    uint64_t element_bytes() const { return lowered_.element == DType::String ? 4 : info(lowered_.element).bits / 8; }

    // Prefetching: ahead of each block copy, a hint for the block of the index tuple `distance` steps further
    // along the innermost loop level that walks the tuples. The hint's address comes from index values already
    // checked (or trusted, with "index_check": "none") and lies inside the tensor.
    void plan_prefetch() {
        // A row function reads its table's row in its own form (a byte, or half a byte, at a time): no block of
        // elements lies at the offsets the hints would address. A run-time count never prefetches (its hints would
        // look past the count): its prefetch setting is none (apply_run_options()).
        if (copy_.runs || copy_.copy_count() == 0 || always_out_of_range() || lowered_.row_function) return;
        std::optional<size_t> level;
        for (size_t l = 0; l < copy_.loops.size(); ++l) {
            if (copy_.loops[l].indices_stride != 0) level = l;
        }
        if (!level) return;
        const uint64_t block_bytes = copy_.block * element_bytes();
        uint64_t distance = 0;
        switch (lowered_.prefetch.kind) {
            case Prefetch::Kind::None: return;
            case Prefetch::Kind::Distance: distance = lowered_.prefetch.distance; break;
            case Prefetch::Kind::Auto: {
                const uint64_t indexed_elements =
                    copy_.indexed == IndexedCopy::Indexed::Source ? copy_.data_size : copy_.output_size;
                if (decided_.straight || lowered_.unroll.kind == Unroll::Kind::None || block_bytes < kCacheLineBytes ||
                    indexed_elements * element_bytes() < kPrefetchTensorBytes) {
                    return;
                }
                distance = (kPrefetchAheadBytes + block_bytes - 1) / block_bytes;
                break;
            }
        }
        if (distance >= copy_.loops[*level].extent) return;  // no tuple has one that far ahead
        prefetch_level_ = level;
        decided_.prefetch_distance = distance;
        prefetch_lines_ = std::min(kPrefetchLines, (std::max<uint64_t>(block_bytes, 1) + kCacheLineBytes - 1) / kCacheLineBytes);
    }

    // Whether the checks are written out under the spec's unroll setting, or under another one's (`kind`).
    bool checks_straight() const { return checks_straight(lowered_.unroll.kind); }
    bool checks_straight(Unroll::Kind kind) const {
        if (copy_.counts_index_rows()) return false;  // a run-time count of tuples
        if (copy_.tuple_count <= 1) return true;  // a loop that would run once is written out instead
        switch (kind) {
            case Unroll::Kind::Full: return true;
            case Unroll::Kind::Auto: return checked_values(lowered_) <= kCheckStraightLineBudget;
            default: return false;
        }
    }

    // --- what the banner and the size guard say ------------------------------------------------------------

    // A kernel whose tensors cannot exist on a target refuses to compile there, rather than truncating sizes
    // silently: wherever they could pass the least SIZE_MAX C99 allows (65535, a 16-bit size_t). The bytes of
    // the largest tensor when a guard is needed (a string's pointer counted as 8 bytes), else 0.
    uint64_t size_guard_bytes() const {
        const uint64_t bytes = std::max({lowered_.data_bytes, lowered_.updates_bytes, lowered_.output_bytes, lowered_.indices_bytes});
        return bytes > 65535 ? bytes : 0;
    }

    // The banner's line on how the kernel runs: the unroll setting and what it made of the copies and checks.
    std::string note() const {
        std::string setting;
        switch (lowered_.unroll.kind) {
            case Unroll::Kind::Auto: setting = "auto"; break;
            case Unroll::Kind::Full: setting = "full"; break;
            case Unroll::Kind::None: setting = "none"; break;
            case Unroll::Kind::Factor: setting = std::to_string(lowered_.unroll.factor); break;
        }
        const std::string& count_loop = lowered_.count_loop_note;
        if (copy_.runs) {
            const std::string runs = std::to_string(copy_.runs->size()) + (copy_.runs->size() == 1 ? " run" : " runs");
            return "unroll " + setting + ": constant indices resolved into " + runs + ", " +
                   (decided_.runs_straight ? "written out" : "copied from a table") +
                   (copy_.loops.empty() || decided_.straight ? ""
                    : copy_.count_bound                      ? " inside " + count_loop
                                                             : " inside constant-bound loops");
        }
        std::string checks = ", no index checks";
        if (lowered_.checked) checks = decided_.checks_straight ? ", straight-line index checks" : ", a loop of index checks";
        checks += lowered_.runtime_bound_note;
        const std::string prefetch = decided_.prefetch_distance
                                         ? ", prefetch " + std::to_string(decided_.prefetch_distance) + " tuples ahead"
                                         : "";
        const std::string copies = copy_.count_bound ? count_loop
                                   : decided_.straight  ? "straight-line copies"
                                                        : "loops over the index tuples";
        return "unroll " + setting + ": " + copies + checks + prefetch;
    }

    // --- helpers -----------------------------------------------------------------------------------------

    void plan_helpers() {
        Helpers& helpers = helpers_;
        const bool copies = copy_.copy_count() > 0;
        plan_check_helper();
        if (prefetch_level_) {
            helpers.prefetch = PrefetchHelper{copy_.indexed == IndexedCopy::Indexed::Destination, prefetch_lines_,
                                              decided_.prefetch_distance};
        }
        if (copy_.runs && !decided_.runs_straight && copies) plan_run_tables();
        helpers.row_function = std::move(lowered_.row_function);
        if (reduce_ && copies) {
            const DTypeInfo& type = info(lowered_.element);
            helpers.combine = CombineHelper{copy_.reduction,
                                            type.category == Category::Complex && copy_.reduction == Reduction::Mul};
        }
    }

    // Written-out copies of more statements than "auto" writes out, in helpers of at most kHelperStatements each
    // (CopyHelper): the body then calls them in turn. Not where a statement of them needs the body's own names (the
    // constant indices it holds, the products of run-time extents, a slice) or holds a loop.
    void plan_copy_helpers() {
        if (!decided_.straight || !copies_begin_ || lowered_.held_indices || copy_.runtime_extents) return;
        // Checks left in the body (against a data count, or 4 at most) stay beside the copies: behind written-out
        // checks, the proof of the error behavior (which assigns nothing) did not rule out a helper call's exit.
        if (any_check() && !helpers_.checks) return;
        const auto begin = body_.begin() + static_cast<std::ptrdiff_t>(*copies_begin_);
        const auto end = body_.end() - 1;  // the return
        if (static_cast<uint64_t>(end - begin) <= kUnrollBudget || has_loop(begin, end)) return;
        for (auto it = begin; it != end; ++it) {
            if (std::holds_alternative<Slice>(it->node) || std::holds_alternative<Let>(it->node) ||
                std::holds_alternative<PrefetchHint>(it->node)) {
                return;
            }
        }
        Statements calls;
        for (auto it = begin; it != end; it += std::min<std::ptrdiff_t>(end - it, kHelperStatements)) {
            CopyHelper helper;
            helper.body.assign(it, it + std::min<std::ptrdiff_t>(end - it, kHelperStatements));
            calls.push_back(wrap(CopyCall{helpers_.copies.size()}));
            helpers_.copies.push_back(std::move(helper));
        }
        helpers_.copies_contract = acsl_copies_contract(lowered_);
        body_.erase(begin, end);
        body_.insert(body_.begin() + static_cast<std::ptrdiff_t>(*copies_begin_), calls.begin(), calls.end());
    }

    // Written-out checks of more values than "auto" writes out, each against a literal size, go to a helper
    // (CheckHelper).
    void plan_check_helper() {
        if (!decided_.checks_straight || always_out_of_range() || !any_check()) return;
        CheckIndices written = plan_checks();
        if (written.checks.size() <= kCheckStraightLineBudget) return;
        for (const Check& check : written.checks) {
            if (check.value.kind != IndexValue::Kind::Element || !check.component.bound_parameter.empty()) return;
        }
        const uint64_t length = copy_.components.size();
        CheckHelper helper{std::move(written), 0, copy_.tuple_count * length, copy_.components, {}};
        // Parts of at most kHelperStatements checks, each of whole tuples (its values' ranges as the helper's): the
        // tuples' checks packed in order (a tuple of more checks a part of its own).
        std::vector<std::vector<Check>> tuples;
        for (const Check& check : helper.checks.checks) {
            if (tuples.empty() || tuples.back().back().value.position / length != check.value.position / length) tuples.emplace_back();
            tuples.back().push_back(check);
        }
        for (const std::vector<Check>& tuple : tuples) {
            const uint64_t first = tuple.front().value.position / length * length;
            if (helper.parts.empty() || helper.parts.back().checks.checks.size() + tuple.size() > kHelperStatements) {
                if (!helper.parts.empty()) helper.parts.back().values = first;
                helper.parts.push_back(CheckHelper{{}, helper.parts.empty() ? 0 : first, 0, copy_.components, {}});
            }
            CheckIndices& part = helper.parts.back().checks;
            part.checks.insert(part.checks.end(), tuple.begin(), tuple.end());
        }
        helper.parts.back().values = helper.values;
        if (helper.parts.size() == 1) helper.parts.clear();
        helpers_.checks = std::move(helper);
    }

    // The tables a loop over the constant runs reads, in the narrowest unsigned type that holds them; a side
    // whose offsets step evenly (or lengths that are all equal) needs none.
    void plan_run_tables() {
        const std::vector<Run>& runs = *copy_.runs;
        auto table = [&](const std::string& role, uint64_t Run::*field) {
            std::vector<uint64_t> values;
            for (const Run& run : runs) values.push_back(run.*field);
            // An even step r * step + first: no table.
            const uint64_t first = values.front();
            const uint64_t step = values.size() > 1 && values[1] >= first ? values[1] - first : 0;
            bool even = true;
            for (size_t r = 0; r < values.size() && even; ++r) even = values[r] == first + r * step;
            if (even) return variable("r", step).plus(first);
            const uint64_t largest = *std::max_element(values.begin(), values.end());
            const unsigned bits = largest <= UINT8_MAX ? 8 : largest <= UINT16_MAX ? 16 : largest <= UINT32_MAX ? 32 : 64;
            helpers_.tables.push_back(RunTable{role, bits, values});
            Term entry;
            entry.kind = Term::Kind::TableEntry;
            entry.name = role;
            entry.widened = bits < 32;  // promoted to int: converted explicitly
            entry.bits = bits;
            return Expr{{entry}, 0};
        };
        run_source_ = table("sources", &Run::source);
        run_destination_ = table("destinations", &Run::destination);
        run_length_ = table("lengths", &Run::length);
        const Term& length = run_length_.terms.front();
        if (length.kind == Term::Kind::Variable && length.coefficient == 0) run_length_ = Expr{{}, run_length_.constant};
    }

    // --- the body ----------------------------------------------------------------------------------------

    void plan_body() {
        Statements& body = body_;
        std::vector<Tensor> parameters;
        for (const Parameter& parameter : lowered_.face.parameters) {
            if (parameter.tensor) parameters.push_back(parameter.which);
        }
        auto parameter = [&](Tensor tensor) { return std::find(parameters.begin(), parameters.end(), tensor) != parameters.end(); };
        if (lowered_.held_indices) body.push_back(wrap(ConstantIndices{*lowered_.held_indices, lowered_.held_indices_comment}));
        for (const RuntimeCount& count : lowered_.face.counts) {
            body.push_back(wrap(CheckCount{count.parameter, count.max_macro, count.error_macro, count.check_comment}));
        }
        if (always_out_of_range()) {
            body.push_back(wrap(Unused{parameters}));
            body.push_back(wrap(Comment{"An axis of size 0: no index value is in range, and there are indices."}));
            body.push_back(wrap(Return{true}));
            return;
        }
        const bool checks = any_check();
        const bool copies = copy_.copy_count() > 0;
        const FirstCopy& first = lowered_.first_copy;
        const bool data_copy = first.from != FirstCopy::From::None;
        std::vector<Tensor> unused;
        if (parameter(Tensor::Data) && !(copies && copy_.indexed == IndexedCopy::Indexed::Source) && !data_copy) {
            unused.push_back(Tensor::Data);
        }
        if (parameter(Tensor::Indices) && !copies && !checks) unused.push_back(Tensor::Indices);
        if (parameter(Tensor::Updates) && !copies) unused.push_back(Tensor::Updates);
        if (!copies && !data_copy) unused.push_back(Tensor::Output);
        if (!unused.empty()) body.push_back(wrap(Unused{unused}));
        if (checks) {
            CheckIndices by_helper;
            by_helper.by_helper = true;
            body.push_back(wrap(helpers_.checks ? by_helper : plan_checks()));
        }
        std::optional<size_t> data_copy_at;  // where the copy of data (or of its table) is, if any
        if (first.from == FirstCopy::From::Table || first.from == FirstCopy::From::Zeros) {
            // Constant data: one copy out of flash, or, when every byte of it is 0, one memset (no table).
            uses_memcpy_ = true;  // memset, or the copy out of flash (memcpy where flash is memory)
            const auto from = first.from == FirstCopy::From::Zeros ? CopyData::From::Zeros : CopyData::From::Table;
            data_copy_at = body.size();
            body.push_back(wrap(CopyData{false, copy_.data_size, "", 0, from}));
        } else if (data_copy) {
            // unroll none: the least code, one element loop (which an in-place update may run too); otherwise
            // the faster of the two (weights.h, kElementLoopCopyLimit). A buffer updated in place as a rule (a
            // cache) is never walked by an element loop, which would run over all of it in place too.
            const bool small_words = copy_.data_size <= kElementLoopCopyLimit && element_bytes() >= kElementLoopCopyWordBytes;
            const bool many_wide = copy_.data_size > kElementLoopCopyLimit && element_bytes() >= 8;
            const bool element_loop = first.element_loop_allowed &&
                                      (lowered_.unroll.kind == Unroll::Kind::None ||
                                       (copy_.counts_index_rows() && small_words) || many_wide);
            uses_memcpy_ = uses_memcpy_ || !element_loop;
            data_copy_at = body.size();
            body.push_back(wrap(CopyData{element_loop, copy_.data_size, first.rows_parameter, first.row_elements, CopyData::From::Data}));
        }
        const size_t after_data_copy = body.size();
        if (copies) {
            // Products of run-time extents, which only the copies read, once each is checked within its bound (so that
            // none wraps).
            if (copy_.runtime_extents) {
                for (const auto& product : copy_.runtime_extents->locals) {
                    body.push_back(wrap(Let{product.name, scaled(product.left, product.right, 1), product.at_most}));
                }
            }
            body.push_back(wrap(Comment{copy_.formula}));
            copies_begin_ = body.size();
            std::vector<Position> positions(copy_.loops.size());
            Place place;
            place.source.tensor = source_;
            plan_level(body, 0, positions, place);
        }
        if (data_copy_at && has_loop(body.begin() + static_cast<std::ptrdiff_t>(after_data_copy), body.end())) {
            std::get<CopyData>(body[*data_copy_at].node).before_loops = true;
        }
        body.push_back(wrap(Return{false}));
    }

    // The checks of every index value, before anything is written. Written out, each returns the error at the
    // first value out of range. A loop of checks returns at the first failure too, the fewest instructions and
    // bytes on a microcontroller's core; but with an unroll factor N, the speed setting for hosts with vector
    // units, the loop has no branch but its own: it gathers the comparisons of every value into one flag
    // (which compilers vectorize) and tests it once.
    CheckIndices plan_checks() const {
        CheckIndices checks;
        const size_t k = copy_.components.size();
        checks.loop = !decided_.checks_straight;
        if (!checks.loop) {
            for (uint64_t t = 0; t < copy_.tuple_count; ++t) {
                for (size_t j = 0; j < k; ++j) {
                    if (!needs_check(copy_.components[j], lowered_.index_type)) continue;
                    checks.checks.push_back(check({IndexValue::Kind::Element, t * k + j}, copy_.components[j]));
                }
            }
            return checks;
        }
        checks.accumulate = lowered_.unroll.kind == Unroll::Kind::Factor;
        // Where every value has one range, under "none" a loop over the values, fewer instructions and bytes than
        // over the tuples. Under the faster settings, for a constant count and a power-of-two range, the values'
        // offsets ORed (CheckIndices::ored_bound; under "none" the compares returning at the first failure take 6
        // bytes less): int32 values, and int64 values read 4 a turn (12 or more that 4 divides; fewer, one a turn,
        // measured slower on Cortex-M0); else the loop over the tuples, with less loop overhead, which compilers
        // write out when it is short.
        const uint64_t bound = ored_bound(lowered_);
        const bool ored = bound != 0;
        if (ored || (checks_per_turn(lowered_, lowered_.unroll.kind) == 1 && k > 1)) {
            checks.ored_bound = bound;
            checks.accumulate = checks.accumulate && !ored;
            checks.tuple_end = copy_.counts_index_rows() ? count_times(copy_.tuples_per_count * k)
                                                         : Expr{{}, copy_.tuple_count * k};
            checks.ored_by_turns = ored && ored_by_turns(lowered_);
            checks.tuple_length = 1;
            checks.checks.push_back(check({IndexValue::Kind::Local, 0}, copy_.components[0]));
            return checks;
        }
        checks.tuple_end = copy_.counts_index_rows() ? count_times(copy_.tuples_per_count) : Expr{{}, copy_.tuple_count};
        checks.tuple_length = k;
        for (size_t j = 0; j < k; ++j) {
            if (!needs_check(copy_.components[j], lowered_.index_type)) continue;
            const auto kind = k == 1 ? IndexValue::Kind::Local : IndexValue::Kind::TupleElement;
            checks.checks.push_back(check({kind, j}, copy_.components[j]));
        }
        return checks;
    }

    Check check(IndexValue value, const IndexComponent& component) const {
        const bool by_words = component.kind == IndexComponent::Kind::Wrapped && component.bound_parameter.empty() && !component.shifted() &&
                              lowered_.index_type == IndexType::Int64 && component.bound >= 1 &&
                              component.bound <= (uint64_t{1} << 31);
        const bool by_count = component.kind == IndexComponent::Kind::Wrapped && !component.bound_parameter.empty() &&
                              component.bound < (uint64_t{1} << 31);
        bool by_range = false;
        if (component.kind == IndexComponent::Kind::Wrapped && component.bound_parameter.empty() && component.shifted() &&
            lowered_.index_type == IndexType::Int64) {
            const CheckedRange range = checked_range(component, IndexType::Int64);
            by_range = !range.low_free && !range.high_free && range.low >= INT32_MIN && range.high <= INT32_MAX &&
                       range.low <= range.high;
        }
        return Check{value, component, by_words, by_count, by_range};
    }

    void plan_level(Statements& out, size_t level, std::vector<Position>& positions, const Place& place) {
        if (level == copy_.loops.size()) {
            plan_copy(out, positions, place);
            return;
        }
        const uint64_t extent = copy_.loops[level].extent;
        const std::string name = "i" + std::to_string(level);
        const LevelPlan& level_plan = levels_[level];
        if (level_plan.mode == LevelPlan::Mode::Full) {
            for (uint64_t i = 0; i < extent; ++i) {
                positions[level] = Position{"", i};
                plan_level(out, level + 1, positions, place);
            }
            return;
        }
        const uint64_t step = level_plan.mode == LevelPlan::Mode::Partial ? level_plan.factor : 1;
        const uint64_t main = extent - extent % step;
        const uint64_t scale = copy_.loops[level].runtime_scale;
        For loop{name, scale ? count_times(scale) : Expr{{}, main}, step, {}};
        positions[level] = Position{name, 0};
        const Place inner = open_slices(loop.body, level, positions, place);
        for (uint64_t j = 0; j < step; ++j) {
            positions[level] = Position{name, j};
            plan_level(loop.body, level + 1, positions, inner);
        }
        out.push_back(wrap(std::move(loop)));
        for (uint64_t i = main; i < extent; ++i) {
            positions[level] = Position{"", i};
            plan_level(out, level + 1, positions, place);
        }
    }

    // At the top of the body of the slice loop (plan_slices): a pointer to each tensor's part at the point of
    // the loop variables up to `level`, for the tensors whose offsets move with them.
    Place open_slices(Statements& out, size_t level, const std::vector<Position>& positions, const Place& place) const {
        if (slice_level_ != level) return place;
        Place inner = place;
        auto slice = [&](View& view, uint64_t kernelgen::Loop::*stride) {
            Expr at;
            for (size_t outer = 0; outer <= level; ++outer) {
                const uint64_t step = copy_.loops[outer].*stride;
                if (!positions[outer].variable.empty() && step != 0) {
                    at = at.plus(scaled(positions[outer].variable, factor_of(copy_.loops[outer], stride), step));
                }
            }
            if (at.terms.empty()) return;
            out.push_back(wrap(Slice{view.tensor, at}));
            view.slice = true;
        };
        slice(inner.source, &kernelgen::Loop::source_stride);
        if (!copy_.runs) slice(inner.indices, &kernelgen::Loop::indices_stride);
        slice(inner.output, &kernelgen::Loop::destination_stride);
        inner.sliced_levels = level + 1;
        return inner;
    }

    // The offset at the current point, relative to the open slices (whose loop variables it leaves out).
    Expr offset(const std::vector<Position>& positions, const Place& place, uint64_t kernelgen::Loop::*stride) const {
        Expr out;
        for (size_t level = 0; level < positions.size(); ++level) {
            const uint64_t step = copy_.loops[level].*stride;
            const std::string& factor = factor_of(copy_.loops[level], stride);
            if (!positions[level].variable.empty() && level >= place.sliced_levels) out = out.plus(scaled(positions[level].variable, factor, step));
            if (factor.empty()) out.constant += positions[level].offset * step;
            else if (positions[level].offset * step != 0) out = out.plus(scaled("", factor, positions[level].offset * step));
        }
        return out;
    }

    // The offset of the indexed side's block: its loops' part plus every index value, wrapped, times its stride.
    // The position of the sequence loop (a circular write): its variable plus its offset, or 0 where the
    // sequence has one position (no loop).
    Expr sequence_position(const std::vector<Position>& positions) const {
        for (size_t level = 0; level < copy_.loops.size(); ++level) {
            if (!copy_.loops[level].sequence) continue;
            const Position& at = positions[level];
            return at.variable.empty() ? Expr{{}, at.offset} : variable(at.variable).plus(at.offset);
        }
        return Expr{{}, 0};
    }

    // A component's constant added at the current point: its own plus each loop's step times the loop's
    // position (a loop variable, whatever the slices; they leave the variables in scope).
    static SignedSum addend(const IndexComponent& component, const std::vector<Position>& positions, const std::vector<Loop>& loops) {
        SignedSum sum{{}, component.addend};
        for (size_t level = 0; level < positions.size(); ++level) {
            const int64_t step = loops[level].addend_step;
            if (step == 0) continue;
            if (!positions[level].variable.empty()) sum.terms.emplace_back(positions[level].variable, step);
            sum.constant += static_cast<int64_t>(positions[level].offset) * step;
        }
        return sum;
    }
    SignedSum addend(const IndexComponent& component, const std::vector<Position>& positions) const {
        return addend(component, positions, copy_.loops);
    }

    Expr indexed_offset(const std::vector<Position>& positions, const Place& place) const {
        const bool source = copy_.indexed == IndexedCopy::Indexed::Source;
        Expr out = offset(positions, place, source ? &kernelgen::Loop::source_stride : &kernelgen::Loop::destination_stride)
                       .plus(copy_.indexed_base);
        const Expr tuple = offset(positions, place, &kernelgen::Loop::indices_stride);
        for (const auto& component : copy_.components) {
            Term index;
            index.kind = component.kind == IndexComponent::Kind::Linear     ? Term::Kind::CheckedIndex
                         : component.kind == IndexComponent::Kind::Circular ? Term::Kind::CircularIndex
                                                                            : Term::Kind::WrappedIndex;
            index.coefficient = component.stride;
            index.factor = component.stride_factor;
            index.view = place.indices;
            index.position = {tuple.plus(component.offset)};
            if (component.kind == IndexComponent::Kind::Circular) index.position.push_back(sequence_position(positions));
            index.bound = component.bound;
            index.bound_parameter = component.bound_parameter;
            if (component.shifted()) {
                SignedSum sum = addend(component, positions);
                if (!sum.terms.empty() || sum.constant != 0) index.addend = std::move(sum);
            }
            out.terms.push_back(std::move(index));
        }
        return out;
    }

    void plan_copy(Statements& out, const std::vector<Position>& positions, const Place& place) {
        Expr source = offset(positions, place, &kernelgen::Loop::source_stride);
        Expr destination = offset(positions, place, &kernelgen::Loop::destination_stride);
        if (copy_.runs) {
            plan_runs(out, place, destination, source);
            return;
        }
        plan_prefetch_hint(out, positions, place);
        const bool source_indexed = copy_.indexed == IndexedCopy::Indexed::Source;
        Expr& indexed = source_indexed ? source : destination;
        indexed = indexed_offset(positions, place);
        // Name the indexed offset once for the elements of a short block (a reduction reads and writes it); a row
        // function's call takes the offset as it is (its row, divided exactly).
        if (!lowered_.row_function && !block_factor().empty()) {
            plan_block(out, place, destination, source, scaled("", block_factor(), copy_.block));
            return;
        }
        if (!lowered_.row_function && (reduce_ || copy_.block > 1) && (reduce_ || copy_.block <= 4)) {
            Local local{row_name(source_indexed ? source_ : Tensor::Output), indexed, {}, std::nullopt};
            // Its elements copied or combined one by one (no row copy, no table): read and written through a
            // pointer to the row, whose address gcc then computes once (doc_gather_axis0, rows of 2 floats: 67 -> 63
            // instructions on Cortex-M4F, 88 -> 80 on Cortex-M0; pixel_lookup_2d, rows of 3 uint32, 2,336 -> 1,594
            // cycles on the ATmega2560, docs/generated-code.md).
            const bool table = source_indexed && lowered_.data_table;
            const bool row_copy = !reduce_ && copy_.block == kWrittenOutBlock && element_bytes() >= kRowCopyElementBytes;
            Place row_place = place;
            if (!table && !row_copy) {
                View& view = source_indexed ? row_place.source : row_place.output;
                local.row = view;
                view = View{view.tensor, false, true};
                indexed = Expr{};
            } else {
                indexed = variable(local.name);
            }
            plan_block(local.body, row_place, destination, source, Expr{{}, copy_.block});
            out.push_back(wrap(std::move(local)));
            return;
        }
        plan_block(out, place, destination, source, Expr{{}, copy_.block});
    }

    // The hint for the block prefetch distance steps further along the prefetch level, when that tuple exists:
    // known here for a level written out; for a loop variable, a test unless every value it takes has one.
    void plan_prefetch_hint(Statements& out, const std::vector<Position>& positions, const Place& place) const {
        if (!prefetch_level_) return;
        const size_t level = *prefetch_level_;
        const uint64_t extent = copy_.loops[level].extent;
        std::vector<Position> ahead = positions;
        ahead[level].offset += decided_.prefetch_distance;
        if (ahead[level].offset >= extent) return;
        const bool source = copy_.indexed == IndexedCopy::Indexed::Source;
        PrefetchHint hint{Access{source ? place.source : place.output, indexed_offset(ahead, place)}, "", 0};
        const std::string& name = positions[level].variable;
        // The tuple exists while variable < limit. An unrolled loop's variable steps by its factor: the limit
        // rounded up to a multiple of it tests the same, and reads the same for every copy of the body.
        const LevelPlan& level_plan = levels_[level];
        const uint64_t step = level_plan.mode == LevelPlan::Mode::Partial ? level_plan.factor : 1;
        const uint64_t limit = (extent - ahead[level].offset + step - 1) / step * step;
        const uint64_t last = extent - extent % step - step;  // the variable's last value
        if (!name.empty() && last >= limit) {
            hint.guard_variable = name;
            hint.guard_limit = limit;
        }
        out.push_back(wrap(std::move(hint)));
    }

    // One contiguous block from source[from] to output[to], `length` elements (a constant, or an expression of
    // the loop over the table of runs).
    void plan_block(Statements& out, const Place& place, const Expr& to, const Expr& from, const Expr& length) {
        const bool variable_length = !length.terms.empty();
        // From constant data (or updates), every block is one copy out of flash (its bytes, whatever their type);
        // a reduction reads each element out of flash before it combines it.
        const bool from_table = (place.source.tensor == Tensor::Data && lowered_.data_table) ||
                                (place.source.tensor == Tensor::Updates && lowered_.updates_table);
        const bool row_copy = length.constant > kWrittenOutBlock ||
                              (length.constant == kWrittenOutBlock && element_bytes() >= kRowCopyElementBytes);
        if (!reduce_ && (variable_length || row_copy || from_table)) {
            if (from_table && helpers_.row_function) {
                out.push_back(wrap(row_call(Access{place.output, to}, Access{place.source, from})));
            } else {
                out.push_back(wrap(BlockCopy{Access{place.output, to}, Access{place.source, from}, length}));
            }
            uses_memcpy_ = true;
            return;
        }
        // A reduction of a long block: an element loop. Under "none", the least code, of any block of two or more
        // (each element's combine is several instructions). Else blocks of up to 4 are written out: the combine is
        // forced inline (helpers.c.mustache), so even a float16 add, which converts through float32 and back, is
        // faster written out than in a loop on every target class (docs/generated-code.md).
        // (A plain copy reaches here with at most 4 elements, narrower than kRowCopyElementBytes at 4, which stay
        // written out.)
        const uint64_t written_out = reduce_ && lowered_.unroll.kind == Unroll::Kind::None ? 1 : 4;
        if (variable_length || (length.constant > written_out && !decided_.straight)) {
            For loop{"e", length, 1, {}};
            loop.body.push_back(wrap(Assign{Access{place.output, to.plus(variable("e"))},
                                            Access{place.source, from.plus(variable("e"))}, reduce_}));
            out.push_back(wrap(std::move(loop)));
            return;
        }
        for (uint64_t e = 0; e < length.constant; ++e) {
            out.push_back(wrap(Assign{Access{place.output, to.plus(e)}, Access{place.source, from.plus(e)}, reduce_}));
        }
    }

    // A block of the row function's table: the call that writes its row. The row is the block's element offset
    // divided by the row's elements, term by term where each is a multiple of it (a Gather along axis 0 reads whole
    // rows), else at run time.
    RowCall row_call(const Access& to, const Access& from) const {
        const uint64_t row = helpers_.row_function->row_elements;
        RowCall call{helpers_.row_function->role, to, std::nullopt, from, row};
        Expr divided = from.at;
        bool exact = !from.view.slice && row != 0 && divided.constant % row == 0;
        for (Term& t : divided.terms) {
            exact = exact && t.coefficient % row == 0;
            if (exact) t.coefficient /= row;
        }
        if (exact) {
            divided.constant /= row;
            call.row = divided;
        }
        return call;
    }

    // Constant indices: every run written out, or a loop over the tables of runs.
    void plan_runs(Statements& out, const Place& place, const Expr& destination, const Expr& source) {
        if (decided_.runs_straight) {
            for (const Run& run : *copy_.runs) {
                plan_block(out, place, destination.plus(run.destination), source.plus(run.source), Expr{{}, run.length});
            }
            return;
        }
        For loop{"r", Expr{{}, copy_.runs->size()}, 1, {}};
        plan_block(loop.body, place, destination.plus(run_destination_), source.plus(run_source_), run_length_);
        out.push_back(wrap(std::move(loop)));
    }

    // What plan_levels(), plan_prefetch() and checks_straight() decided, which the later steps read.
    struct Decisions {
        bool wide_offsets = false;
        bool straight = false;
        bool runs_straight = false;
        bool checks_straight = false;
        uint64_t prefetch_distance = 0;
    };

    Lowered lowered_;
    const IndexedCopy& copy_;
    Decisions decided_;
    Helpers helpers_;
    Statements body_;
    std::optional<size_t> copies_begin_;  // where the body's copies begin, after the comment of their formula
    bool uses_memcpy_ = false;
    bool reduce_ = false;
    Tensor source_ = Tensor::Data;
    std::vector<LevelPlan> levels_;
    std::optional<size_t> slice_level_;     // the loop whose body opens the slices
    std::optional<size_t> prefetch_level_;  // the loop level prefetching looks ahead along
    uint64_t prefetch_lines_ = 0;
    Expr run_source_, run_destination_, run_length_;  // the current run inside the loop over the tables
};

}  // namespace

Schedule plan(Lowered lowered) { return Planner(std::move(lowered)).run(); }

const std::vector<std::string>& helper_roles() {
    static const std::vector<std::string> roles = [] {
        std::vector<std::string> out{"checks", "combine", "prefetch", "sources", "destinations", "lengths", "data", "updates"};
        out.insert(out.end(), row_function_roles().begin(), row_function_roles().end());
        return out;
    }();
    return roles;
}

const std::vector<std::string>& numbered_helper_roles() {
    static const std::vector<std::string> roles{"checks", "copies"};
    return roles;
}

}  // namespace schedule
}  // namespace kernelgen
