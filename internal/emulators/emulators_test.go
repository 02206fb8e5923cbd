package emulators

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestStartStop(t *testing.T) {
	for _, kind := range []Kind{Firestore, PubSub} {
		t.Run(string(kind), func(t *testing.T) {
			e := Require(t, kind)
			conn, err := net.Dial("tcp", e.Host)
			if err != nil {
				t.Fatalf("%s emulator at %s not listening: %v", kind, e.Host, err)
			}
			conn.Close()
			if kind == Firestore {
				resp, err := http.Get("http://" + e.Host + "/")
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.HasPrefix(string(b), "Ok") {
					t.Errorf("GET / = %q, want Ok", b)
				}
			}
			e.Stop()
			if _, err := net.Dial("tcp", e.Host); err == nil {
				t.Errorf("%s emulator still listening after Stop", kind)
			}
		})
	}
}

func TestMissingJar(t *testing.T) {
	old := FirestoreJar
	FirestoreJar = "/nonexistent/cloud-firestore-emulator.jar"
	defer func() { FirestoreJar = old }()
	if err := Installed(Firestore); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Installed(Firestore) with a missing jar = %v, want ErrNotInstalled", err)
	}
}
