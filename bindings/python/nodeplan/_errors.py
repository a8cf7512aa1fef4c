"""nodeplan.Error: a failed call, with the absl::StatusCode number."""

# absl::StatusCode names by number (the NODEPLAN_* codes of c_api.h).
CODE_NAMES = {
    0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
    10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED", 13: "INTERNAL",
    14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
}

INVALID_ARGUMENT = 3
RESOURCE_EXHAUSTED = 8
INTERNAL = 13


class Error(Exception):
    """A nodeplan call failed. `code` is the absl::StatusCode number,
    `code_name` its name ("INVALID_ARGUMENT"), `message` the library's text
    (naming the object and field path for bad input)."""

    def __init__(self, code, message):
        self.code = code
        self.code_name = CODE_NAMES.get(code, f"CODE_{code}")
        self.message = message
        super().__init__(f"{self.code_name}: {message}")


class InvalidArgumentError(Error, ValueError):
    """Bad input: undecodable bytes, or an invalid or inconsistent request."""


def make_error(code, message):
    cls = InvalidArgumentError if code == INVALID_ARGUMENT else Error
    return cls(code, message)
