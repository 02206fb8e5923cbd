// Package cloudlog builds a log/slog JSON handler whose records Cloud Logging
// reads as structured entries: "severity" (DEBUG, INFO, WARNING, ERROR),
// "message", "time", and "logging.googleapis.com/trace" when the context
// carries a trace (see WithTrace). Attribute keys stay as given; foldcorpus
// uses "run", "shard" and "entry_id".
package cloudlog

import (
	"context"
	"io"
	"log/slog"
	"strings"
)

// Keys Cloud Logging reads from a JSON log line.
const (
	TraceKey = "logging.googleapis.com/trace"
	SpanKey  = "logging.googleapis.com/spanId"
)

// New returns a logger writing one JSON object per line to w at level and
// above. project names the trace resource (projects/P/traces/ID); empty
// writes the bare trace id.
func New(w io.Writer, level slog.Level, project string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.MessageKey:
				a.Key = "message"
			case slog.LevelKey:
				a.Key = "severity"
				a.Value = slog.StringValue(severity(a.Value.Any().(slog.Level)))
			}
			return a
		},
	})
	return slog.New(&traceHandler{Handler: h, project: project})
}

func severity(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	}
	return "DEBUG"
}

type traceKey struct{}

type trace struct{ id, span string }

// WithTrace returns ctx carrying the trace of a W3C traceparent value
// ("00-TRACEID-SPANID-FLAGS") or an X-Cloud-Trace-Context value
// ("TRACEID/SPANID;o=1"). An unparsable value leaves ctx unchanged.
func WithTrace(ctx context.Context, header string) context.Context {
	if t, ok := parseTrace(header); ok {
		return context.WithValue(ctx, traceKey{}, t)
	}
	return ctx
}

func parseTrace(h string) (trace, bool) {
	h = strings.TrimSpace(h)
	if parts := strings.Split(h, "-"); len(parts) == 4 && len(parts[1]) == 32 && len(parts[2]) == 16 {
		return trace{parts[1], parts[2]}, true
	}
	id, rest, _ := strings.Cut(h, "/")
	span, _, _ := strings.Cut(rest, ";")
	if len(id) == 32 && isHex(id) {
		return trace{id, span}, true
	}
	return trace{}, false
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

type traceHandler struct {
	slog.Handler
	project string
}

func (h *traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if t, ok := ctx.Value(traceKey{}).(trace); ok {
		id := t.id
		if h.project != "" {
			id = "projects/" + h.project + "/traces/" + t.id
		}
		r.AddAttrs(slog.String(TraceKey, id))
		if t.span != "" {
			r.AddAttrs(slog.String(SpanKey, t.span))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h *traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &traceHandler{h.Handler.WithAttrs(as), h.project}
}

func (h *traceHandler) WithGroup(name string) slog.Handler {
	return &traceHandler{h.Handler.WithGroup(name), h.project}
}
