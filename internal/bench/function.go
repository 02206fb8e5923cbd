package bench

import (
	"context"
	"debug/buildinfo"
	"debug/elf"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// buildpackMain is the main Google's Go buildpack generates for a package
// that registers its functions declaratively (GoogleCloudPlatform/buildpacks,
// cmd/go/functions_framework converter/main.go.tmpl), blank-importing the
// module root, as emulator-tests/deploy_test.go builds it.
const buildpackMain = `package main

import (
	"log"
	"net/http"
	"os"

	_ "%s"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
)

func main() {
	http.HandleFunc("/robots.txt", http.NotFound)
	http.HandleFunc("/favicon.ico", http.NotFound)
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if err := funcframework.Start(port); err != nil {
		log.Fatalf("Function failed to start: %%v\n", err)
	}
}
`

// unwanted are module path prefixes a function binary never calls: the
// accelerator runtime, model checkpoints, plotting, DuckDB.
var unwanted = []string{"github.com/gomlx/", "github.com/nlpodyssey/gopickle", "gonum.org/", "github.com/duckdb/",
	"github.com/marcboeker/go-duckdb", "git.sr.ht/~sbinet/gg", "github.com/golang/freetype"}

// Function measures the deployed function binary: its size (as built and
// stripped with GOOGLE_GOLDFLAGS=-s -w), cold start (process start to the
// first served request), resident memory before the first request, and
// what it links (modules from its build info; unwanted ones flagged; the
// largest modules by symbol bytes).
func Function(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench function", flag.ContinueOnError)
	src := fs.String("source", ".", "module root to build the buildpack's main from (ignored with --binary)")
	binary := fs.String("binary", "", "measure this function binary instead of building one")
	target := fs.String("target", "ShardFn", "FUNCTION_TARGET")
	reps := fs.Int("reps", 5, "cold starts (medians are reported)")
	strippedOnly := fs.Bool("stripped-only", false, "build only the -s -w binary (one build; no symbol sizes)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if *reps < 1 {
		return usageError(fmt.Errorf("--reps must be >= 1"))
	}
	bins := map[string]string{}
	if *binary != "" {
		bins["given"] = *binary
	} else {
		dir, err := os.MkdirTemp("", "foldcorpus-bench-function-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		variants := map[string]string{"as built": "", "-s -w": "-s -w"}
		if *strippedOnly {
			delete(variants, "as built")
		}
		for name, ldflags := range variants {
			bin, err := buildFunction(ctx, *src, dir, ldflags)
			if err != nil {
				return err
			}
			bins[name] = bin
		}
	}
	names := make([]string, 0, len(bins))
	for n := range bins {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Printf("bench function: FUNCTION_TARGET=%s, %d cold starts each, medians (goal: < 40 MiB before the first request, binary <= 48.5 MB)\n", *target, *reps)
	for _, name := range names {
		bin := bins[name]
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		var starts, rss, anon []float64
		for range *reps {
			s, r, err := coldStart(ctx, bin, *target)
			if err != nil {
				return err
			}
			starts, rss, anon = append(starts, s*1e3), append(rss, r.rss), append(anon, r.anon)
		}
		fmt.Printf("  %-9s %6.1f MB   cold start %5.1f ms   RSS before the first request %5.1f MiB (%.1f MiB anonymous, the rest the binary's own pages)\n",
			name, float64(st.Size())/1e6, median(starts), median(rss), median(anon))
	}
	bin := bins[names[len(names)-1]] // "as built" or "given": with symbols
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("build info of %s: %w", bin, err)
	}
	var bad []string
	for _, d := range info.Deps {
		for _, u := range unwanted {
			if strings.HasPrefix(d.Path, u) {
				bad = append(bad, d.Path)
			}
		}
	}
	fmt.Printf("  links %d modules; never called but linked: %s\n", len(info.Deps), orNone(bad))
	if top, err := moduleSymbolBytes(bin); err == nil && len(top) > 0 {
		fmt.Printf("  largest by symbol bytes:")
		for _, m := range top[:min(8, len(top))] {
			fmt.Printf(" %s %.1f MB;", m.name, float64(m.bytes)/1e6)
		}
		fmt.Println()
	}
	return nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// buildFunction builds the buildpack's main for the module at src into
// dir with ldflags, leaving src's go.mod and go.sum untouched (the
// buildpack tidies a copy).
func buildFunction(ctx context.Context, src, dir, ldflags string) (string, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	modData, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("--source %s: %w", src, err)
	}
	module := ""
	for _, line := range strings.Split(string(modData), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			module = strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(src, "go.sum"))
	modfile := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(modfile, modData, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		return "", err
	}
	// The main must live inside the module: a folder go ignores in ./...
	mainDir, err := os.MkdirTemp(src, "_bench_function_main_")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(mainDir)
	if err := os.WriteFile(filepath.Join(mainDir, "main.go"), fmt.Appendf(nil, buildpackMain, module), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "function"+strings.ReplaceAll(ldflags, " ", ""))
	cmd := exec.CommandContext(ctx, "go", "build", "-modfile", modfile, "-mod=mod", "-ldflags", ldflags, "-o", bin, "./"+filepath.Base(mainDir))
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the buildpack's main: %w\n%s", err, out)
	}
	return bin, nil
}

// coldStart starts bin serving target on a free port and returns the
// seconds from process start to the first served response and the
// resident memory once it listens, before that request.
func coldStart(ctx context.Context, bin, target string) (secs float64, mem residentMiB, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, mem, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "FUNCTION_TARGET="+target, "PORT="+strconv.Itoa(port))
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, mem, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for {
		if time.Since(t0) > 30*time.Second {
			return 0, mem, fmt.Errorf("%s did not listen on %s within 30 s", bin, addr)
		}
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	mem = processRSS(cmd.Process.Pid)
	resp, err := http.Get("http://" + addr + "/robots.txt")
	if err != nil {
		return 0, mem, fmt.Errorf("first request: %w", err)
	}
	resp.Body.Close()
	return time.Since(t0).Seconds(), mem, nil
}

// residentMiB is a process's resident set and its anonymous part (the
// rest is file pages: the executable's own, mapped as they are touched).
type residentMiB struct{ rss, anon float64 }

// processRSS reads pid's resident set now (-1 where unknown).
func processRSS(pid int) residentMiB {
	m := residentMiB{-1, -1}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, rest, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
		if err != nil {
			continue
		}
		switch key {
		case "VmRSS":
			m.rss = kb / 1024
		case "RssAnon":
			m.anon = kb / 1024
		}
	}
	return m
}

type moduleBytes struct {
	name  string
	bytes uint64
}

// moduleSymbolBytes sums the ELF symbol sizes of bin by module (the first
// three path elements of a symbol's package; standard library packages by
// their first element), largest first. A stripped binary has none.
func moduleSymbolBytes(bin string) ([]moduleBytes, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	sizes := map[string]uint64{}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) || f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue // undefined or bss: no bytes in the file
		}
		name := s.Name
		if i := strings.LastIndex(name, "/"); i >= 0 {
			if j := strings.Index(name[i:], "."); j >= 0 {
				name = name[:i+j]
			}
		} else if j := strings.Index(name, "."); j >= 0 {
			name = name[:j]
		}
		parts := strings.SplitN(name, "/", 4)
		if strings.Contains(parts[0], ".") && len(parts) >= 3 {
			name = strings.Join(parts[:3], "/")
		} else {
			name = parts[0]
		}
		sizes[name] += s.Size
	}
	var out []moduleBytes
	for n, b := range sizes {
		out = append(out, moduleBytes{n, b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].bytes > out[j].bytes })
	return out, nil
}
