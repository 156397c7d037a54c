"""The part of Kind 2's JSON output contract that kinduct promises (property objects, the
analysis markers, ``log`` and ``kind2Options`` objects), written as a JSON Schema for
jsonschema.  Every item must match exactly one kind of object, told apart by ``objectType``."""

VALUE = {"anyOf": [
    {"type": "boolean"}, {"type": "number"}, {"type": "string"},
    {"type": "object", "properties": {"num": {"type": "integer"}, "den": {"type": "integer"}},
     "required": ["num", "den"]},
    {"type": "array"},
]}

STREAM = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "type": {"enum": ["bool", "int", "subrange", "real", "enum", "array", "abstr",
                          "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                          "uint64"]},
        "class": {"enum": ["input", "output", "local", "ghost"]},
        "instantValues": {"type": "array", "items": {
            "type": "array", "minItems": 2, "maxItems": 2,
            "prefixItems": [{"type": "integer", "minimum": 0}, VALUE]}},
    },
    "required": ["name", "type", "class", "instantValues"],
}

TRACE = {"type": "array", "items": {
    "type": "object",
    "properties": {
        "blockType": {"enum": ["node", "function", "state"]},
        "name": {"type": "string"},
        "streams": {"type": "array", "items": STREAM},
        "subnodes": {"$ref": "#/$defs/trace"},
    },
    "required": ["blockType", "name"],
}}

PROPERTY = {
    "type": "object",
    "properties": {
        "objectType": {"const": "property"},
        "name": {"type": "string"},
        "scope": {"type": "string"},
        "file": {"type": "string"},
        "line": {"type": "integer"},
        "column": {"type": "integer"},
        "source": {"enum": ["Assumption", "Guarantee", "Generated", "OneModeActive", "Ensure",
                            "PropAnnot", "NonVacuityCheck"]},
        "runtime": {"type": "object", "properties": {
            "unit": {"const": "sec"}, "timeout": {"type": "boolean"},
            "value": {"type": "number"}}, "required": ["unit", "timeout", "value"]},
        "k": {"type": "integer", "minimum": 0},
        "trueFor": {"type": "integer", "minimum": 0},
        "answer": {"type": "object", "properties": {
            "source": {"type": "string"},
            "value": {"enum": ["valid", "reachable", "falsifiable", "unreachable", "unknown"]}},
            "required": ["value"]},
        "counterExample": {"$ref": "#/$defs/trace"},
        "witness": {"$ref": "#/$defs/trace"},
    },
    "required": ["objectType", "name", "line", "column", "source", "answer", "runtime"],
}

ELEMENT_VALUES = {"type": "array", "items": {
    "type": "object", "properties": {"name": {"type": "string"}, "type": {"const": "bool"},
                                     "instantValues": {"type": "array"}},
    "required": ["name", "type", "instantValues"]}}

#: Realizability checks (``--enable CONTRACTCK``): a deadlocking trace's first block carries the
#: values of the assumptions, guarantees and modes.
REALIZABILITY = {
    "type": "object",
    "properties": {
        "objectType": {"const": "realizabilityCheck"},
        "runtime": PROPERTY["properties"]["runtime"],
        "result": {"enum": ["realizable", "unrealizable", "unknown"]},
        "deadlockingTrace": {"type": "array", "items": {
            "type": "object",
            "properties": {"blockType": {"enum": ["node", "function"]}, "name": {"type": "string"},
                           "assumptionsTrace": ELEMENT_VALUES, "guaranteesTrace": ELEMENT_VALUES,
                           "modesTrace": ELEMENT_VALUES,
                           "streams": {"type": "array", "items": STREAM}},
            "required": ["blockType", "name", "streams"]}},
        "conflictingSet": {"type": "object", "properties": {
            "objectType": {"const": "modelElementSet"}, "class": {"const": "conflicting constraints"},
            "size": {"type": "integer", "minimum": 0},
            "nodes": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"},
                "elements": {"type": "array", "items": {"type": "object", "properties": {
                    "category": {"enum": ["assumption", "guarantee", "require", "ensure"]},
                    "name": {"type": "string"}, "line": {"type": "integer"},
                    "column": {"type": "integer"}, "file": {"type": "string"}},
                    "required": ["category", "name"]}}},
                "required": ["name", "elements"]}}},
            "required": ["objectType", "class", "size", "nodes"]},
        "reason": {"type": "string"},
    },
    "required": ["objectType", "runtime", "result"],
    "additionalProperties": False,
}

OUTPUT = {
    "$defs": {"trace": TRACE},
    "type": "array",
    "items": {"oneOf": [
        PROPERTY,
        {"type": "object", "properties": {"objectType": {"const": "analysisStart"}},
         "required": ["objectType", "top", "concrete", "abstract", "assumptions"]},
        {"type": "object", "properties": {"objectType": {"const": "analysisStart"},
                                          "context": {"enum": ["contract", "environment"]}},
         "required": ["objectType", "top", "context"], "not": {"required": ["concrete"]}},
        REALIZABILITY,
        {"type": "object", "properties": {
            "objectType": {"const": "satisfiabilityCheck"}, "runtime": PROPERTY["properties"]["runtime"],
            "result": {"enum": ["satisfiable", "unsatisfiable", "unknown"]}, "reason": {"type": "string"}},
         "required": ["objectType", "runtime", "result"]},
        {"type": "object", "properties": {"objectType": {"const": "analysisStop"}},
         "required": ["objectType"]},
        {"type": "object", "properties": {
            "objectType": {"const": "log"},
            "level": {"enum": ["off", "fatal", "error", "warn", "note", "info", "debug", "trace"]},
            "source": {"type": "string"}, "file": {"type": "string"},
            "line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1},
            "value": {"type": "string"}},
         "required": ["objectType", "level", "source", "value"]},
        {"type": "object", "properties": {
            "objectType": {"const": "kind2Options"},
            "enabled": {"type": "array", "items": {"type": "string"}},
            "timeout": {"type": "number", "minimum": 0}, "bmcMax": {"type": "integer", "minimum": 0},
            "compositional": {"type": "boolean"}, "modular": {"type": "boolean"}},
         "required": ["objectType", "enabled", "timeout", "bmcMax", "compositional", "modular"]},
    ]},
}


def validate(objects: list) -> None:
    import jsonschema

    jsonschema.validate(objects, OUTPUT, cls=jsonschema.Draft202012Validator)
