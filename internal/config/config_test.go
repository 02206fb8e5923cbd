package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEnv(t *testing.T) {
	env := map[string]string{
		"S": "  text ", "I": "12", "D": "90s", "B": "No", "L": " a, ,b ,",
		"BAD_I": "twelve", "BAD_D": "1d", "BAD_B": "maybe",
	}
	e := NewEnv(func(k string) string { return env[k] }, "p: ")
	if got := e.String("S", "def"); got != "text" {
		t.Errorf("String(S) = %q, want text", got)
	}
	if got := e.String("UNSET", "def"); got != "def" {
		t.Errorf("String(UNSET) = %q, want def", got)
	}
	if got := e.Int("I", 3); got != 12 {
		t.Errorf("Int(I) = %d, want 12", got)
	}
	if got := e.Int("UNSET", 3); got != 3 {
		t.Errorf("Int(UNSET) = %d, want 3", got)
	}
	if got := e.Duration("D", time.Second); got != 90*time.Second {
		t.Errorf("Duration(D) = %s, want 1m30s", got)
	}
	if got := e.Bool("B", true); got {
		t.Errorf("Bool(B=No) = true, want false")
	}
	if got := e.Bool("UNSET", true); !got {
		t.Errorf("Bool(UNSET, true) = false")
	}
	if got := e.List("L"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("List(L) = %q, want [a b]", got)
	}
	if err := e.Err(); err != nil {
		t.Fatalf("Err() after good values = %v", err)
	}
	e.Int("BAD_I", 0)
	e.Duration("BAD_D", 0)
	e.Bool("BAD_B", false)
	err := e.Err()
	for _, want := range []string{`p: BAD_I="twelve": not an integer`, `p: BAD_D="1d": not a duration`, `p: BAD_B="maybe": want true or false`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %v, want it to contain %s", err, want)
		}
	}
	for lvl, ok := range map[string]bool{"debug": true, "info": true, "warn": true, "error": true, "loud": false, "": false} {
		if got := CheckLogLevel(lvl) == nil; got != ok {
			t.Errorf("CheckLogLevel(%q) ok = %v, want %v", lvl, got, ok)
		}
	}
}
