package wire

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrorResponse answers req with code wherever its response carries an
// error, encoded at the request's version. Answers that list what the
// request asked about (topics, partitions, resources) list every item
// with code, as Kafka's AbstractRequest.getErrorResponse does: a client
// reads an item left out as a success (franz-go does so for
// AddPartitionsToTxn, and then produces to a partition outside its
// transaction). Each such API says how in its own file (errorAnswer).
// Other answers get code at the top level, or in a first element one or
// two levels down where they carry errors per topic or partition.
func ErrorResponse(req kmsg.Request, code int16) kmsg.Response {
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if fill := errorAnswers[req.Key()]; fill != nil {
		fill(req, resp, code)
	} else {
		setFirstErrorCodes(reflect.ValueOf(resp).Elem(), code, 2)
	}
	return resp
}

// errorAnswers fills, per API key, an error answer that the reflective
// default would get wrong; registered by errorAnswer.
var errorAnswers = map[int16]func(kmsg.Request, kmsg.Response, int16){}

// errorAnswer registers how ErrorResponse fills the answer to requests of
// type Q (its response is an R) with code; called from the API's file.
func errorAnswer[Q kmsg.Request, R kmsg.Response](fill func(req Q, resp R, code int16)) {
	var q Q
	errorAnswers[q.Key()] = func(req kmsg.Request, resp kmsg.Response, code int16) {
		fill(req.(Q), resp.(R), code)
	}
}

// setFirstErrorCodes sets code in v's ErrorCode, or else in the first
// element (added if missing) of each of its lists, depth levels down.
func setFirstErrorCodes(v reflect.Value, code int16, depth int) {
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.CanSet() {
		f.SetInt(int64(code))
		return
	}
	if depth == 0 {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			if f.Len() == 0 {
				f.Set(reflect.Append(f, reflect.New(f.Type().Elem()).Elem()))
			}
			setFirstErrorCodes(f.Index(0), code, depth-1)
		}
	}
}

// OverwriteErrorCodes sets code where an answer already built carries its
// errors: its ErrorCode if it has one, else that of every element of its
// nested lists (a commit's every partition), to any depth.
func OverwriteErrorCodes(resp kmsg.Response, code int16) {
	overwrite(reflect.ValueOf(resp).Elem(), code)
}

func overwrite(v reflect.Value, code int16) {
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.CanSet() {
		f.SetInt(int64(code))
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			for j := range f.Len() {
				overwrite(f.Index(j), code)
			}
		}
	}
}
