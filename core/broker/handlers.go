package broker

import (
	"reflect"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// handler serves one API over a range of versions.
type handler struct {
	min, max int16
	// fn returns the response, or nil when the response comes later (a
	// pending operation) or never (acks=0).
	fn func(*Broker, *Request) kmsg.Response
}

// handlers is filled by each API's file; ApiVersions reports exactly these.
var handlers = map[int16]handler{}

func register(key int16, min, max int16, fn func(*Broker, *Request) kmsg.Response) {
	handlers[key] = handler{min, max, fn}
}

// SupportedVersions lists the served APIs, sorted by key.
func SupportedVersions() []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(handlers))
	for key, h := range handlers {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = key, h.min, h.max
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ApiKey < out[j].ApiKey })
	return out
}

// unsupported answers a request whose version this broker does not serve
// with UNSUPPORTED_VERSION, encoded at the version the client asked for. It
// sets every ErrorCode field it can reach at the top level, or one level
// down where responses carry errors per topic (best effort: the client
// learns the cause, and ApiVersions tells it what to use instead).
func unsupported(req kmsg.Request) kmsg.Response {
	if _, ok := req.(*kmsg.ApiVersionsRequest); ok {
		return ApiVersionsFallback()
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	setErrorCodes(reflect.ValueOf(resp).Elem(), kerr.UnsupportedVersion.Code, 2)
	return resp
}

func setErrorCodes(v reflect.Value, code int16, depth int) {
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
			setErrorCodes(f.Index(0), code, depth-1)
		}
	}
}

// overwriteErrorCodes sets code where an answer already built carries its
// errors: the ErrorCode of v if it has one, else of every element of its
// nested lists (a commit's every partition), to any depth.
func overwriteErrorCodes(v reflect.Value, code int16) {
	if f := v.FieldByName("ErrorCode"); f.IsValid() && f.CanSet() {
		f.SetInt(int64(code))
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			for j := range f.Len() {
				overwriteErrorCodes(f.Index(j), code)
			}
		}
	}
}
