package nodeplan

import "fmt"

// Code is an absl::StatusCode number, as the C ABI returns it.
type Code int

// The codes the C ABI returns (NODEPLAN_* in nodeplan/c_api.h).
const (
	CodeOK                 Code = 0
	CodeCancelled          Code = 1
	CodeUnknown            Code = 2
	CodeInvalidArgument    Code = 3
	CodeDeadlineExceeded   Code = 4
	CodeNotFound           Code = 5
	CodeAlreadyExists      Code = 6
	CodePermissionDenied   Code = 7
	CodeResourceExhausted  Code = 8
	CodeFailedPrecondition Code = 9
	CodeAborted            Code = 10
	CodeOutOfRange         Code = 11
	CodeUnimplemented      Code = 12
	CodeInternal           Code = 13
	CodeUnavailable        Code = 14
	CodeDataLoss           Code = 15
	CodeUnauthenticated    Code = 16
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE_%d", int(c))
}

// Error is a failed call: the code and the library's message (which names
// the object and field path for bad input).
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// Is makes errors.Is(err, ErrInvalidArgument) (and the other sentinels) match
// any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrInvalidArgument   = &Error{Code: CodeInvalidArgument}
	ErrResourceExhausted = &Error{Code: CodeResourceExhausted}
	ErrInternal          = &Error{Code: CodeInternal}
)
