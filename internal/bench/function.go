package bench

import (
	"context"
	"debug/buildinfo"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/buildpack"
)

// Function measures the deployed function binary: the buildpack's build
// replayed with infra/functions.tf's build environment (internal/buildpack:
// what the deployment ships), its size against the goal, cold start
// (process start to the first served request), resident memory before the
// first request (anonymous and file-backed: the file pages are the
// executable's own, so they follow its size and the file system's page
// size), and what it links (packages that it never calls flagged; the
// largest modules by symbol bytes, from the same build without
// GOOGLE_GOLDFLAGS). --baseline adds the build without infra's variables
// (CGO_ENABLED=1 only: the binary deployed before they were set).
func Function(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench function", flag.ContinueOnError)
	src := fs.String("source", ".", "repository root to replay the buildpack on (ignored with --binary)")
	binary := fs.String("binary", "", "measure this function binary instead of building one")
	target := fs.String("target", "ShardFn", "FUNCTION_TARGET")
	reps := fs.Int("reps", 5, "cold starts (medians are reported)")
	strippedOnly := fs.Bool("stripped-only", false, "build only the deployed binary (one build; no symbol sizes)")
	baseline := fs.Bool("baseline", false, "also build without infra's build variables (CGO_ENABLED=1 only)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if *reps < 1 {
		return usageError(fmt.Errorf("--reps must be >= 1"))
	}
	type variant struct{ name, bin string }
	var variants []variant
	var symbols string // a binary with symbols, for the module sizes
	if *binary != "" {
		variants = append(variants, variant{"given", *binary})
		symbols = *binary
	} else {
		repo, err := filepath.Abs(*src)
		if err != nil {
			return err
		}
		env, err := buildpack.BuildEnv(repo)
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "foldcorpus-bench-function-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Printf("bench function: replaying the buildpack on %s with infra/functions.tf's build environment: %s\n", repo, env)
		envs := []struct {
			name string
			env  buildpack.Env
		}{{"deployed", env}}
		if !*strippedOnly {
			unstripped := maps.Clone(env)
			delete(unstripped, buildpack.GoLDFlags)
			envs = append(envs, struct {
				name string
				env  buildpack.Env
			}{"symbols", unstripped})
		}
		if *baseline {
			envs = append(envs, struct {
				name string
				env  buildpack.Env
			}{"baseline", buildpack.Env{"CGO_ENABLED": "1"}})
		}
		for _, e := range envs {
			bin, err := buildFunction(ctx, repo, filepath.Join(dir, e.name), e.env)
			if err != nil {
				return err
			}
			variants = append(variants, variant{e.name, bin})
			if e.name == "symbols" {
				symbols = bin
			}
		}
	}
	// tmpfs maps a binary in 4 KiB pages; a file system with large folios
	// (ext4 on recent kernels) maps much more of the text at once, so the
	// file part of RSS depends on where the binary lies.
	shm := ""
	if d, err := os.MkdirTemp("/dev/shm", "foldcorpus-bench-function-"); err == nil {
		shm = d
		defer os.RemoveAll(d)
	}
	fmt.Printf("bench function: FUNCTION_TARGET=%s, %d cold starts each, medians (goal: binary <= 48.5 MB, < 40 MiB resident before the first request)\n", *target, *reps)
	for _, v := range variants {
		st, err := os.Stat(v.bin)
		if err != nil {
			return err
		}
		places := []struct{ where, bin string }{{"here", v.bin}}
		if shm != "" {
			if c, err := copyExecutable(v.bin, filepath.Join(shm, v.name)); err == nil {
				places = append(places, struct{ where, bin string }{"tmpfs", c})
			}
		}
		verdict := "over"
		if float64(st.Size()) <= 48.5e6 {
			verdict = "within"
		}
		fmt.Printf("  %-9s %6.1f MB (%s the goal)\n", v.name, float64(st.Size())/1e6, verdict)
		for _, p := range places {
			var starts, rss, anon, file []float64
			for range *reps {
				s, r, err := coldStart(ctx, p.bin, *target)
				if err != nil {
					return err
				}
				starts, rss, anon, file = append(starts, s*1e3), append(rss, r.rss), append(anon, r.anon), append(file, r.file)
			}
			fmt.Printf("    run from %-5s cold start %5.1f ms   RSS before the first request %5.1f MiB = %.1f MiB anonymous + %.1f MiB file-backed\n",
				p.where, median(starts), median(rss), median(anon), median(file))
		}
	}
	if *binary == "" {
		repo, _ := filepath.Abs(*src)
		env, err := buildpack.BuildEnv(repo)
		if err != nil {
			return err
		}
		deps, err := buildpack.Deps(ctx, repo, env)
		if err != nil {
			return err
		}
		fmt.Printf("  links %d packages (go list -deps with the deployed build environment); never called but linked: %s\n", len(deps), orNone(byPrefix(buildpack.UnwantedIn(deps))))
	}
	info, err := buildinfo.ReadFile(variants[0].bin)
	if err != nil {
		return fmt.Errorf("build info of %s: %w", variants[0].bin, err)
	}
	var mods []string
	for _, d := range info.Deps {
		mods = append(mods, d.Path)
	}
	fmt.Printf("  %s links %d modules; of them never called: %s\n", variants[0].name, len(info.Deps), orNone(buildpack.UnwantedIn(mods)))
	if symbols != "" {
		if top, err := moduleSymbolBytes(symbols); err == nil && len(top) > 0 {
			fmt.Printf("  largest by symbol bytes:")
			for _, m := range top[:min(8, len(top))] {
				fmt.Printf(" %s %.1f MB;", m.name, float64(m.bytes)/1e6)
			}
			fmt.Println()
		}
	}
	return nil
}

// byPrefix counts packages by their buildpack.Unwanted prefix: "PREFIX
// (N packages)".
func byPrefix(pkgs []string) []string {
	var out []string
	for _, u := range buildpack.Unwanted {
		n := 0
		for _, p := range pkgs {
			if strings.HasPrefix(p, u) {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s (%d packages)", strings.TrimSuffix(u, "/"), n))
		}
	}
	return out
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// buildFunction replays the buildpack on the repository at repo with env
// in dir (created) and returns the binary. It writes only under dir.
func buildFunction(ctx context.Context, repo, dir string, env buildpack.Env) (string, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	r, err := buildpack.Build(ctx, buildpack.Options{Repo: repo, AppRoot: dir, Env: env})
	if err != nil {
		return "", fmt.Errorf("replaying the buildpack: %w", err)
	}
	return r.Binary, nil
}

// copyExecutable copies bin to dst (mode 0755) and returns dst.
func copyExecutable(bin, dst string) (string, error) {
	in, err := os.Open(bin)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
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

// residentMiB is a process's resident set, its anonymous part and its
// file-backed part (the executable's own pages, mapped as they are
// touched: RssFile, or RssShmem for a binary on tmpfs).
type residentMiB struct{ rss, anon, file float64 }

// processRSS reads pid's resident set now (-1 where unknown).
func processRSS(pid int) residentMiB {
	m := residentMiB{-1, -1, -1}
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
		case "RssFile", "RssShmem":
			m.file = max(m.file, 0) + kb/1024
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
