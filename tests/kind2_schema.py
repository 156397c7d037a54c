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
        "class": {"enum": ["input", "output", "local"]},
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

OUTPUT = {
    "$defs": {"trace": TRACE},
    "type": "array",
    "items": {"oneOf": [
        PROPERTY,
        {"type": "object", "properties": {"objectType": {"const": "analysisStart"}},
         "required": ["objectType", "top", "concrete", "abstract", "assumptions"]},
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
