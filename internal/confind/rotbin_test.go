package confind

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// sameBits reports the first difference between a and b, walking every
// field (exported or not): floats are compared by their bits (so -0 and
// NaN payloads count), and a nil slice differs from an empty one.
func sameBits(a, b reflect.Value, path string) error {
	if a.Kind() != b.Kind() {
		return fmt.Errorf("%s: kind %v vs %v", path, a.Kind(), b.Kind())
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
			}
			return nil
		}
		return sameBits(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if err := sameBits(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); err != nil {
				return err
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Errorf("%s: %d vs %d keys", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Errorf("%s[%v]: missing", path, k)
			}
			if err := sameBits(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return fmt.Errorf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Errorf("%s: length %d vs %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if err := sameBits(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Float64:
		if x, y := math.Float64bits(a.Float()), math.Float64bits(b.Float()); x != y {
			return fmt.Errorf("%s: bits %#x vs %#x", path, x, y)
		}
	case reflect.Int, reflect.Int32:
		if a.Int() != b.Int() {
			return fmt.Errorf("%s: %d vs %d", path, a.Int(), b.Int())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Errorf("%s: %v vs %v", path, a.Bool(), b.Bool())
		}
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Errorf("%s: %q vs %q", path, a.String(), b.String())
		}
	default:
		return fmt.Errorf("%s: kind %v not compared", path, a.Kind())
	}
	return nil
}

func sameLibrary(t *testing.T, got, want *Library) {
	t.Helper()
	if err := sameBits(reflect.ValueOf(got), reflect.ValueOf(want), "Library"); err != nil {
		t.Errorf("compact library differs from the text parse: %v", err)
	}
}

// textLibrary parses dir's texts with ReadLibrary, never a compact file.
func textLibrary(t *testing.T, dir string) *Library {
	t.Helper()
	ebl, err := os.Open(filepath.Join(dir, "EBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer ebl.Close()
	bebl, err := os.Open(filepath.Join(dir, "BEBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer bebl.Close()
	lib, err := ReadLibrary(ebl, "EBL.out", bebl, "BEBL.out")
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// copyLib copies the texts of src (and the files in extra) into a new folder.
func copyLib(t *testing.T, src string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range append([]string{"EBL.out", "BEBL.out"}, names...) {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompactMini: the compact form of the mini library, read by
// LoadLibrary, Shared and LoadLibraryFrom (local store and GCS), is bit for
// bit the text parse; alone (no texts beside it) too.
func TestCompactMini(t *testing.T) {
	dir := copyLib(t, miniRotlib(t))
	want := textLibrary(t, dir)
	want.Dir = dir
	written, path, err := WriteCompact(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, CompactName) {
		t.Errorf("WriteCompact wrote %s", path)
	}
	sameLibrary(t, written, want)
	got, err := LoadLibrary(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameLibrary(t, got, want)
	if s, err := Shared(dir); err != nil || s.Dir != dir {
		t.Errorf("Shared = %v, %v", s, err)
	} else {
		sameLibrary(t, s, want)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	alone := t.TempDir()
	if err := os.WriteFile(filepath.Join(alone, CompactName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = LoadLibrary(alone)
	if err != nil {
		t.Fatal(err)
	}
	got.Dir = dir
	sameLibrary(t, got, want)

	texts := map[string][]byte{}
	for _, n := range []string{"EBL.out", "BEBL.out"} {
		if texts[n], err = os.ReadFile(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-3] ^= 0x10
	objects := map[string][]byte{
		"lib/EBL.out": texts["EBL.out"], "lib/BEBL.out": texts["BEBL.out"], "lib/" + CompactName: data,
		"alone/" + CompactName: data,
		"stale/EBL.out":        texts["EBL.out"], "stale/BEBL.out": append(texts["BEBL.out"], '\n'), "stale/" + CompactName: data,
		"flip/EBL.out": texts["EBL.out"], "flip/BEBL.out": texts["BEBL.out"], "flip/" + CompactName: flipped,
	}
	stores := map[string]func(t *testing.T) blobtest.Harness{
		"local": func(t *testing.T) blobtest.Harness { return stores.Local(t, objects, "file://") },
		"gcs": func(t *testing.T) blobtest.Harness {
			h, _ := stores.FakeGCS(t, objects, gcs.Options{})
			return h
		},
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			h := mk(t)
			ctx := context.Background()
			for _, d := range []string{"lib", "alone"} {
				uri := strings.TrimSuffix(h.URI(d+"/"+CompactName), "/"+CompactName)
				got, err := LoadLibraryFrom(ctx, h.Store, uri)
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				if got.Dir != uri {
					t.Errorf("%s: Dir %q", d, got.Dir)
				}
				got.Dir = dir
				sameLibrary(t, got, want)
			}
			stale := h.URI("stale/" + CompactName)
			if _, err := LoadLibraryFrom(ctx, h.Store, strings.TrimSuffix(stale, "/"+CompactName)); !errors.Is(err, ErrLibrary) ||
				!errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), stale+" was not made from") || !strings.Contains(err.Error(), "BEBL.out") {
				t.Errorf("stale BEBL.out: %v", err)
			}
			flip := h.URI("flip/" + CompactName)
			if _, err := LoadLibraryFrom(ctx, h.Store, strings.TrimSuffix(flip, "/"+CompactName)); !errors.Is(err, ErrLibrary) ||
				!strings.Contains(err.Error(), flip+": payload sha256") {
				t.Errorf("flipped bit: %v", err)
			}
		})
	}
}

// TestCompactSynth: the compact form of the synthetic production-size
// library is bit for bit its text parse.
func TestCompactSynth(t *testing.T) {
	lib := synthLib(t)
	if synth.compactErr != nil {
		t.Fatal(synth.compactErr)
	}
	want := *lib
	want.Dir = synth.compact.Dir
	sameLibrary(t, synth.compact, &want)
}

// TestCompactErrors: a compact file that is stale (a text of another size
// or the same size and other bytes), truncated, extended, of another
// magic or version, or has one bit flipped, is refused naming it, and no
// library is returned.
func TestCompactErrors(t *testing.T) {
	dir := copyLib(t, miniRotlib(t))
	if _, _, err := WriteCompact(dir); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, CompactName))
	if err != nil {
		t.Fatal(err)
	}
	ebl, err := os.ReadFile(filepath.Join(dir, "EBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	bump := func(b []byte, at int) []byte {
		b = append([]byte(nil), b...)
		b[at] ^= 1
		return b
	}
	version := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(version[8:], compactVersion+1)
	sameSize := append([]byte(nil), ebl...)
	i := strings.Index(string(sameSize), "CONF ") + 5
	for sameSize[i] < '0' || sameSize[i] > '9' {
		i++
	}
	sameSize[i] = '0' + (sameSize[i]-'0'+1)%10 // another digit, the same size
	cases := []struct {
		name    string
		compact []byte
		ebl     []byte // nil: unchanged; empty: removed
		want    string
	}{
		{"ebl size", good, append(append([]byte(nil), ebl...), '\n'), "was not made from " + filepath.Join("DIR", "EBL.out") + fmt.Sprintf(" (%d bytes, it records %d)", len(ebl)+1, len(ebl))},
		{"ebl sha256", good, sameSize, "was not made from " + filepath.Join("DIR", "EBL.out") + " (sha256 "},
		{"truncated", good[:len(good)-1], nil, fmt.Sprintf("%d bytes, the header says %d: truncated or extended", len(good)-1, len(good))},
		{"extended", append(append([]byte(nil), good...), 0), nil, "truncated or extended"},
		{"header only", good[:40], nil, "truncated: 40 bytes, shorter than the 136-byte header"},
		{"magic", bump(good, 0), nil, "not a compact rotamer library"},
		{"version", version, nil, fmt.Sprintf("compact library version %d; this build reads version %d", compactVersion+1, compactVersion)},
		{"payload bit", bump(good, len(good)/2), nil, ": payload sha256 "},
		{"recorded sum bit", bump(good, 30), nil, "was not made from " + filepath.Join("DIR", "EBL.out") + " (sha256 "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := copyLib(t, miniRotlib(t))
			if err := os.WriteFile(filepath.Join(d, CompactName), c.compact, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.ebl != nil {
				if err := os.WriteFile(filepath.Join(d, "EBL.out"), c.ebl, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lib, err := LoadLibrary(d)
			want := strings.ReplaceAll(c.want, "DIR", d)
			if lib != nil || !errors.Is(err, ErrLibrary) || !errors.Is(err, derrors.ErrPermanent) ||
				!strings.Contains(err.Error(), filepath.Join(d, CompactName)) || !strings.Contains(err.Error(), want) {
				t.Errorf("LoadLibrary = %v, %v; want an ErrLibrary naming %s and containing %q", lib, err, CompactName, want)
			}
		})
	}
}
