// The operator table (kernelgen/operators.h) is the one list of operators in the code; the JSON Schema
// (schema/kernelgen-spec.schema.json) is a file that says the same for editors. These tests hold the two
// together, both ways: the schema's operators, the keys it lets each take and requires, are the table's.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "kernelgen/operators.h"

namespace {

using kernelgen::Op;
using kernelgen::operators;
using nlohmann::json;
using Names = std::set<std::string>;

json read_schema() {
    std::ifstream in(std::string(KERNELGEN_SOURCE_DIR) + "/schema/kernelgen-spec.schema.json");
    return json::parse(in);
}

const json& kernel_schema(const json& schema) { return schema.at("definitions").at("kernel"); }

// The operator named by an "if" of the kernel schema's allOf ({"properties": {"op": {"const": ...}}}), or "".
std::string operator_of_condition(const json& condition) {
    const json* op = condition.contains("properties") ? &condition["properties"] : nullptr;
    if (!op || !op->contains("op") || !(*op)["op"].contains("const")) return "";
    return (*op)["op"]["const"].get<std::string>();
}

// The "then" of the block for operator `name`; null when the schema has none.
json operator_block(const json& kernel, const std::string& name) {
    for (const auto& block : kernel.at("allOf")) {
        if (operator_of_condition(block.at("if")) == name) return block.at("then");
    }
    return nullptr;
}

// What the schema lets a kernel of operator `name` have: every property but those its block forbids (false).
Names schema_keys(const json& kernel, const std::string& name) {
    const json block = operator_block(kernel, name);
    Names keys;
    for (const auto& [key, value] : kernel.at("properties").items()) {
        const bool forbidden = block.is_object() && block.contains("properties") && block["properties"].contains(key) &&
                               block["properties"][key] == false;
        if (!forbidden) keys.insert(key);
    }
    return keys;
}

// What the schema requires of a kernel of operator `name`: the kernel's required keys and its block's.
Names schema_required(const json& kernel, const std::string& name) {
    Names keys = kernel.at("required").get<Names>();
    const json block = operator_block(kernel, name);
    if (block.is_object() && block.contains("required")) {
        for (const auto& key : block["required"]) keys.insert(key.get<std::string>());
    }
    return keys;
}

Names table_keys(Op op, bool required_only) {
    Names keys;
    for (const auto& key : kernelgen::spec_keys(op)) {
        if (key.required || !required_only) keys.emplace(key.name);
    }
    return keys;
}

}  // namespace

TEST(OperatorTable, RowsAreConsistent) {
    Names names, onnx_types;
    for (const auto& row : operators()) {
        EXPECT_TRUE(names.emplace(row.name).second) << row.name << " has two rows";
        EXPECT_EQ(&kernelgen::info(row.id), &row) << row.name;
        EXPECT_EQ(kernelgen::name(row.id), row.name);
        Names keys = table_keys(row.id, false);
        EXPECT_EQ(keys.count("updates_shape") > 0, row.scatter) << row.name << ": a scatter, and only it, has updates";
        bool same_name = false;
        for (const auto& onnx : row.onnx) {
            EXPECT_TRUE(onnx_types.emplace(onnx.op_type).second) << onnx.op_type << " imports as two operators";
            same_name = same_name || onnx.op_type == row.name;
            // Import reads each attribute of a default-domain operator as the spec key of its name (another domain's
            // operator, ONNX Runtime's GatherBlockQuantized, has rules of its own).
            for (const auto& attribute : onnx.attributes) {
                EXPECT_TRUE(!onnx.domain.empty() || keys.count(std::string(attribute)))
                    << onnx.op_type << "'s " << attribute << " is no key of " << row.name;
            }
            EXPECT_EQ(onnx.until == 0, onnx.replaced_by.empty())
                << onnx.op_type << ": a deprecated operator names its successor";
        }
        EXPECT_TRUE(same_name) << "ONNX's " << row.name << " imports as " << row.name;
    }
}

TEST(OperatorTable, SchemaOperatorsAreTheTables) {
    const json schema = read_schema();
    const json& kernel = kernel_schema(schema);
    Names table;
    for (const auto& row : operators()) table.emplace(row.name);
    EXPECT_EQ(kernel.at("properties").at("op").at("enum").get<Names>(), table);
    // Every operator block of the schema belongs to an operator of the table.
    for (const auto& block : kernel.at("allOf")) {
        const std::string name = operator_of_condition(block.at("if"));
        if (!name.empty()) EXPECT_TRUE(table.count(name)) << "the schema has a block for " << name;
    }
}

// The import report's schema lists the ONNX operators a node of the report may be: every one the table imports.
TEST(OperatorTable, ReportSchemaOperatorsAreTheTables) {
    std::ifstream in(std::string(KERNELGEN_SOURCE_DIR) + "/schema/kernelgen-import-report.schema.json");
    const json schema = json::parse(in);
    Names table;
    for (const auto& row : operators()) {
        for (const auto& onnx : row.onnx) table.emplace(onnx.op_type);
    }
    const json& node = schema.at("properties").at("nodes").at("items");
    EXPECT_EQ(node.at("properties").at("op").at("enum").get<Names>(), table);
}

TEST(OperatorTable, SchemaKeysOfEachOperatorAreTheTables) {
    const json schema = read_schema();
    const json& kernel = kernel_schema(schema);
    for (const auto& row : operators()) {
        const std::string name(row.name);
        EXPECT_EQ(schema_keys(kernel, name), table_keys(row.id, false)) << name << ": the keys it takes";
        EXPECT_EQ(schema_required(kernel, name), table_keys(row.id, true)) << name << ": the keys it requires";
    }
    const auto every = kernelgen::every_spec_key();
    EXPECT_EQ(schema.at("definitions").at("kernelKey").at("enum").get<Names>(), Names(every.begin(), every.end()));
}

// A key only some operators take begins its description with their names ("ScatterND, ScatterElements: ..."),
// in the table's order.
TEST(OperatorTable, SchemaDescriptionsNameTheOperatorsOfAKey) {
    const json schema = read_schema();
    for (const auto& [key, value] : kernel_schema(schema).at("properties").items()) {
        std::string takers;
        size_t count = 0;
        for (const auto& row : operators()) {
            if (!table_keys(row.id, false).count(key)) continue;
            takers += (takers.empty() ? "" : ", ") + std::string(row.name);
            ++count;
        }
        if (count == operators().size()) continue;
        const auto description = value.at("description").get<std::string>();
        EXPECT_EQ(description.substr(0, takers.size() + 2), takers + ": ") << key;
    }
}
