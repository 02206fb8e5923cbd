package hf

import (
	"net/http"
	"testing"
	"time"
)

func TestParseQuota(t *testing.T) {
	tests := []struct {
		name   string
		rl     []string
		policy []string
		want   Quota
		ok     bool
	}{
		{"hub resolvers", []string{`"resolvers";r=2999;t=118`}, []string{`"fixed window";"resolvers";q=3000;w=300`},
			Quota{Name: "resolvers", Remaining: 2999, Reset: 118 * time.Second, Limit: 3000, Window: 300 * time.Second}, true},
		{"fraction", []string{`"api";r=0;t=0.25`}, nil, Quota{Name: "api", Remaining: 0, Reset: 250 * time.Millisecond}, true},
		{"pick by name", []string{`"api";r=5;t=9, "resolvers";r=7;t=3`}, nil, Quota{Name: "resolvers", Remaining: 7, Reset: 3 * time.Second}, true},
		{"none", nil, nil, Quota{}, false},
		{"no t", []string{`"api";r=5`}, nil, Quota{}, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.rl {
			h.Add("RateLimit", v)
		}
		for _, v := range tt.policy {
			h.Add("RateLimit-Policy", v)
		}
		got, ok := parseQuota(h, "resolvers")
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: parseQuota = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNextLink(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{`<https://huggingface.co/api/datasets/o/n/tree/main?recursive=true&cursor=ZXl>; rel="next"`}, "https://huggingface.co/api/datasets/o/n/tree/main?recursive=true&cursor=ZXl"},
		{[]string{`<https://x/1>; rel="prev", <https://x/3>; rel="next"`}, "https://x/3"},
		{nil, ""},
		{[]string{`<https://x/1>; rel="prev"`}, ""},
	}
	for _, tt := range tests {
		if got := nextLink(tt.in); got != tt.want {
			t.Errorf("nextLink(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
