#!/usr/bin/python3
"""schema/kernelgen-spec.schema.json against the validator it describes.

Usage: check_schema.py SOURCE_DIR (run with a Python that has jsonschema: Debian's python3-jsonschema)

- The schema is a valid draft-07 schema.
- Every spec of specs/ and examples/ validates; an import report there (kernelgen import's <model>.import.json,
  which kernelgen and kernelgen_add_kernels() skip as holding no kernels) validates against the report's schema.
- Every example of the error catalogue (docs/errors.md, which generator_test checks against kernelgen's own
  messages) is rejected by the schema, except the few in NOT_EXPRESSIBLE, each with the reason JSON Schema
  cannot say it. Those must still be accepted by it (else they belong out of the list), and must exist.
- The lists of names the schema refuses are exactly the validator's lists in the C++ sources.
"""
import json
import pathlib
import re
import sys

import jsonschema

# Catalogue entries (their "### " titles) whose rule relates values to each other, which JSON Schema cannot.
NOT_EXPRESSIBLE = {
    "Malformed JSON, with line and column": "not a JSON document: no schema applies (the editor's parser says so)",
    "A dimension that does not broadcast": "needs two shapes compared, aligned at the back",
    "More dimensions than the indices": "needs the lengths of two arrays compared",
    "An index tuple broadcast": "needs the last items of two arrays of any length compared",
    "A constant added along an axis the indices are not broadcast along": "needs the items of two arrays compared",
    "Constants that leave no index in range": "needs the sums of the steps times the extents against a data dimension",
    "Steps of the wrong length": "needs the lengths of two arrays compared",
    "A constant tuple component out of range": "needs an item against the data dimension it selects along",
    "A broadcast of the components read": "needs the count of nulls in one array against another array",
    "Updates broadcast along the rows a tuple writes": "needs the indices' rank against the items of another array",
    "Updates that do not broadcast": "needs a shape derived from two others, aligned at the back",
    "An ONNX model given as a spec": "not a JSON document: a model, which kernelgen import reads",
    "A key given twice in one object": "JSON Schema sees the parsed object, where one of the two is gone",
    "A shape with more than 2^40 elements": "needs the product of the dimensions",
    "An output with more than 2^40 elements": "needs the product of dimensions of two shapes",
    "Gather: axis out of range": "needs the data rank (the schema bounds axis by the largest rank, -32..31)",
    "GatherElements: ranks differ": "needs the lengths of two arrays compared",
    "GatherElements: an indices dimension exceeds data's off the axis": "needs two shapes and the axis",
    "GatherND: batch_dims out of range": "needs the ranks of data and indices",
    "GatherND: batch dimensions differ": "needs two shapes compared",
    "GatherND: index tuple longer than the data rank": "needs indices_shape[-1] against the data rank",
    "GatherND: index tuple longer than data rank - batch_dims": "needs indices_shape[-1], the data rank and batch_dims",
    "GatherND: empty index tuples": "needs indices_shape[-1], the last item of an array of any length",
    "ScatterND: index tuple longer than the data rank": "needs indices_shape[-1] against the data rank",
    "ScatterND: updates_shape does not match": "needs the shape derived from two others",
    "ScatterElements: ranks differ": "needs the lengths of two arrays compared",
    "ScatterElements: an indices dimension exceeds data's off the axis": "needs two shapes and the axis",
    "ScatterElements: updates_shape does not match": "needs two shapes compared",
    "TensorScatter: axis -r, the batch counted from the back": "needs the data rank (axis -r is axis 0)",
    "TensorScatter: ranks differ": "needs the lengths of two arrays compared",
    "TensorScatter: a dimension off the sequence axis differs": "needs two shapes and the axis",
    "TensorScatter: a sequence longer than the cache": "needs two shapes and the axis",
    "TensorScatter: a constant write index past the linear range": "needs the cache shape and the sequence length",
    "A constant index out of range": "needs the data shape",
    "A constant index beyond int32, on an axis longer than int32 can reach": "needs the data shape",
    "A constant index on an axis of size 0": "needs the data shape",
    "Constant indices of the wrong shape": "needs the nesting compared with indices_shape",
    "Many bad constant indices": "needs the data shape",
    "A value out of range for its type": "needs each value compared with dtype's range, at any depth of nesting",
    "A number beyond float16": "needs each value compared with dtype's range, at any depth of nesting",
    "NaN and infinities spelt another way": "needs each value checked against dtype, at any depth of nesting",
    "Constant data of the wrong shape": "needs the nesting compared with data_shape",
    "A bool given as a number": "needs each value checked against dtype, at any depth of nesting",
    "A complex value that is not a pair": "needs each value checked against dtype, at any depth of nesting",
    "A data_file that does not exist": "a rule about another file",
    "A quantized table gathered along another axis": "needs the data rank (axis -r is axis 0)",
    "Scales of the wrong shape": "needs the scales' shape derived from data_shape, the axis and block_size",
    "A scales_file of the wrong shape": "a rule about another file",
    "A quantization axis out of range": "needs the data rank",
    "prefetch beside a quantized table": "needs the prefetch setting compared with a nested object's presence",
    "A zero point out of range": "needs each value compared with the quantized type's range, at any depth of nesting",
    "A zero_points_file of another element type": "a rule about another file",
    "A 4-bit value out of range": "needs each value compared with the quantized type's range, at any depth of nesting",
    "A 4-bit data_file not packed": "a rule about another file",
    "An 8-bit data_file of the other signedness": "a rule about another file",
    "A data_file of another element type": "a rule about another file's content",
    "A data_file of another shape": "a rule about another file's content",
    "An updates_file of another shape": "a rule about another file's content",
    "Constant updates of the wrong shape": "needs the nesting compared with updates_shape",
    "A data_file in Fortran order": "a rule about another file's content",
    "A data_file cut short": "a rule about another file's content",
    "A data_file that is not a NumPy file": "a rule about another file's content",
    "A bool data_file holding other bytes": "a rule about another file's content",
    "Constant data larger than a kernel holds": "needs the product of data_shape times the element size",
    "One name twice": "a rule over the files of a run; each file alone is valid",
    "Names equal once upper-cased": "a rule over the files of a run; each file alone is valid",
    "A name that is another kernel's macro": "a rule over the files of a run; each file alone is valid",
    "\"full\" unrolling beyond 4096 statements": "needs the statement count of the generated code",
    "Gather: a count that would not lead the output": "needs the product of data's dimensions before the axis",
    "A run-time count over an axis of size 0": "needs the data axes the indices select along",
    "An axis before the gather axis": "needs each item compared with axis, negative ones normalized by the data rank",
    "An axis listed twice": "needs a negative item normalized by the data rank (equal items the schema refuses)",
    "An axis out of range": "needs the data rank (the schema bounds each item by the largest rank, -32..31)",
    "A run-time extent's bound of 0": "needs data_shape's item at each listed axis",
    "Tensors too large for uint32_t offsets": "needs the product of data_shape and of the output shape",
}


def catalogue(path):
    """The "### " entries of docs/errors.md: (title, line, [(file name, text)]), as error_catalogue_test reads them."""
    entries, block = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if block is not None:
            if line == "```":
                block = None
            elif block == "json":
                name, text = entries[-1][2][-1]
                entries[-1][2][-1] = (name, text + ("\n" if text else "") + line)
            continue
        if line.startswith("### "):
            entries.append((line[4:], number, []))
        elif line.startswith("```json") and entries:
            entries[-1][2].append((line[8:] or "spec.json", ""))
            block = "json"
        elif line.startswith("```"):
            block = "other"
    return entries


def literals(text, start):
    """The string literals of the brace-enclosed initializer that follows `start` in C++ source text."""
    begin = text.index(start)
    return re.findall(r'"([^"]*)"', text[begin:text.index("};", begin)])


def main():
    source = pathlib.Path(sys.argv[1])
    schema = json.loads((source / "schema/kernelgen-spec.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    report_validator = jsonschema.Draft7Validator(json.loads((source / "schema/kernelgen-import-report.schema.json").read_text()))
    failures = []

    documents = sorted((source / "specs").glob("*.json")) + sorted((source / "examples").glob("**/*.json"))
    specs = []
    for path in documents:
        document = json.loads(path.read_text())
        report = isinstance(document, dict) and "kernelgen_import_report" in document  # as kernelgen tells them apart
        if not report:
            specs.append(path)
        for error in (report_validator if report else validator).iter_errors(document):
            failures.append(f"{path.relative_to(source)}: /{'/'.join(map(str, error.path))}: {error.message}")
    if len(specs) < 10:
        failures.append(f"only {len(specs)} specs found under specs/ and examples/")

    entries = catalogue(source / "docs/errors.md")
    if len(entries) < 50:
        failures.append(f"only {len(entries)} entries read from docs/errors.md")
    titles = {title for title, _, _ in entries}
    for title in sorted(set(NOT_EXPRESSIBLE) - titles):
        failures.append(f"NOT_EXPRESSIBLE names {title!r}, which docs/errors.md no longer has")
    rejected = 0
    for title, line, files in entries:
        where = f"docs/errors.md:{line}: {title}"
        verdicts = []
        for name, text in files:
            try:
                verdicts.append(next(validator.iter_errors(json.loads(text)), None) is not None)
            except ValueError:
                verdicts.append(None)  # not JSON
        if title in NOT_EXPRESSIBLE:
            if any(verdicts):
                failures.append(f"{where}: the schema rejects it, so it does not belong in NOT_EXPRESSIBLE")
            if None in verdicts and not NOT_EXPRESSIBLE[title].startswith("not a JSON document"):
                failures.append(f"{where}: not JSON, yet NOT_EXPRESSIBLE gives another reason")
        elif not any(verdicts):
            failures.append(f"{where}: kernelgen rejects it but the schema accepts it")
        else:
            rejected += 1

    # "$schema" at the top of either form, as kernelgen accepts it (SpecErrors.SchemaKey* in generator_test).
    kernel = {"name": "k", "op": "Gather", "dtype": "float32", "data_shape": [3], "indices_shape": [2]}
    for document, valid in [({"$schema": "s.json", **kernel}, True),
                            ({"$schema": "s.json", "kernels": [kernel]}, True),
                            ({"$schema": 7, **kernel}, False),
                            ({"kernels": [{"$schema": "s.json", **kernel}]}, False)]:
        if validator.is_valid(document) != valid:
            failures.append(f"the schema {'rejects' if valid else 'accepts'} {json.dumps(document)}")

    # The names the schema refuses are the validator's: generator/src/common/c_library_names.cpp and c_names.cpp.
    library = (source / "generator/src/common/c_library_names.cpp").read_text()
    math = literals(library, "kMathFunctions[] = {")
    expected = {
        "cLibraryNames": set(math) | {m + "f" for m in math} | {m + "l" for m in math}
                         | set(literals(library, "kOtherNames[] = {")),
        "reservedWords": set(literals((source / "generator/src/common/c_names.cpp").read_text(),
                                      "std::set<std::string, std::less<>> words{")),
        "standardMacros": set(literals((source / "generator/src/common/c_names.cpp").read_text(), "macros{")),
    }
    for definition, names in expected.items():
        listed = schema["definitions"][definition]["enum"]
        if set(listed) != names or len(listed) != len(names):
            failures.append(f"definitions/{definition} differs from the validator's list: schema only "
                            f"{sorted(set(listed) - names)}, validator only {sorted(names - set(listed))}")

    for failure in failures:
        print(failure)
    print(f"{len(specs)} specs valid, {len(documents) - len(specs)} import reports; {rejected} catalogue examples rejected by the schema, "
          f"{len(NOT_EXPRESSIBLE)} not expressible in it")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
